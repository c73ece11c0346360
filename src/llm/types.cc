#include "seragen/llm/types.h"

#include "seragen/base/enum_names.h"

namespace seragen::llm {

namespace {

constexpr std::pair<Role, std::string_view> kRoleNames[] = {
    {Role::kSystem, "system"}, {Role::kUser, "user"}, {Role::kAssistant, "assistant"}, {Role::kTool, "tool"}};
constexpr std::pair<ReasoningSource, std::string_view> kReasoningSourceNames[] = {
    {ReasoningSource::kNone, "none"},
    {ReasoningSource::kReasoningField, "reasoning"},
    {ReasoningSource::kReasoningContentField, "reasoning_content"},
    {ReasoningSource::kThinkTag, "think_tag"}};
constexpr std::pair<ToolIssue, std::string_view> kToolIssueNames[] = {{ToolIssue::kNone, "none"},
                                                                      {ToolIssue::kToolFormat, "tool_format"},
                                                                      {ToolIssue::kToolArgs, "tool_args"},
                                                                      {ToolIssue::kTooLarge, "too_large"}};

}  // namespace

std::string_view RoleName(Role role) { return NameOf<Role>(kRoleNames, role, "user"); }

std::string_view ReasoningSourceName(ReasoningSource source) {
  return NameOf<ReasoningSource>(kReasoningSourceNames, source, "none");
}

std::string_view ToolIssueName(ToolIssue issue) { return NameOf<ToolIssue>(kToolIssueNames, issue, "none"); }

}  // namespace seragen::llm
