#include "seragen/llm/types.h"

namespace seragen::llm {

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kSystem: return "system";
    case Role::kUser: return "user";
    case Role::kAssistant: return "assistant";
    case Role::kTool: return "tool";
  }
  return "user";
}

std::string_view ReasoningSourceName(ReasoningSource source) {
  switch (source) {
    case ReasoningSource::kNone: return "none";
    case ReasoningSource::kReasoningField: return "reasoning";
    case ReasoningSource::kReasoningContentField: return "reasoning_content";
    case ReasoningSource::kThinkTag: return "think_tag";
  }
  return "none";
}

std::string_view ToolIssueName(ToolIssue issue) {
  switch (issue) {
    case ToolIssue::kNone: return "none";
    case ToolIssue::kToolFormat: return "tool_format";
    case ToolIssue::kToolArgs: return "tool_args";
    case ToolIssue::kTooLarge: return "too_large";
  }
  return "none";
}

}  // namespace seragen::llm
