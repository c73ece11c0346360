#include "agent/answer_bound.h"

#include <string>

#include "seragen/base/utf8.h"

namespace seragen::agent {
namespace {

void Cut(std::string& text) {
  if (text.size() > kKeptAnswerBytes) text.resize(Utf8SafePrefixLength(text, kKeptAnswerBytes));
}

}  // namespace

bool BoundAnswer(llm::ChatResponse& answer, std::int64_t max_bytes) {
  if (max_bytes <= 0) return false;
  std::uint64_t bytes = answer.content.size() + answer.reasoning.size();
  for (const llm::ToolCall& c : answer.tool_calls) bytes += c.arguments_raw.size() + c.name.size() + c.id.size();
  if (bytes <= static_cast<std::uint64_t>(max_bytes) && answer.tool_calls.size() <= kMaxAnswerCalls) return false;
  if (answer.tool_calls.size() > kMaxAnswerCalls) answer.tool_calls.resize(kMaxAnswerCalls);
  Cut(answer.content);
  Cut(answer.reasoning);
  Cut(answer.raw_body);
  for (llm::ToolCall& c : answer.tool_calls) {
    Cut(c.arguments_raw);
    Cut(c.name);
    Cut(c.id);
    c.arguments_json = "{}";
    c.arguments_valid = false;
    c.arguments_error = "cut: the answer was too large";
  }
  answer.tool_issue = llm::ToolIssue::kTooLarge;
  answer.tool_issue_detail = std::to_string(bytes);
  return true;
}

}  // namespace seragen::agent
