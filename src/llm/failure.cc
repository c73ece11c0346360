#include "seragen/llm/failure.h"

#include <array>

namespace seragen::llm {

namespace {
constexpr std::array<std::pair<FailureClass, std::string_view>, 13> kNames = {{
    {FailureClass::kNone, "none"},
    {FailureClass::kTransientNetwork, "transient_network"},
    {FailureClass::kTransientServer, "transient_server"},
    {FailureClass::kServerNotReady, "server_not_ready"},
    {FailureClass::kRateLimited, "rate_limited"},
    {FailureClass::kContextOverflow, "context_overflow"},
    {FailureClass::kOutputBudget, "output_budget"},
    {FailureClass::kConfig, "config"},
    {FailureClass::kQuota, "quota"},
    {FailureClass::kBadRequest, "bad_request"},
    {FailureClass::kToolFormat, "tool_format"},
    {FailureClass::kToolArgs, "tool_args"},
    {FailureClass::kCancelled, "cancelled"},
}};
constexpr std::string_view kTagOpen = "[llm:";
}  // namespace

std::string_view FailureClassName(FailureClass c) {
  for (const auto& [k, name] : kNames)
    if (k == c) return name;
  return "unknown";
}

bool IsRetryable(FailureClass c) {
  return c == FailureClass::kTransientNetwork || c == FailureClass::kTransientServer ||
         c == FailureClass::kServerNotReady || c == FailureClass::kRateLimited;
}

Status MakeFailure(FailureClass c, std::string_view message) {
  StatusCode code = StatusCode::kUnavailable;
  switch (c) {
    case FailureClass::kNone: code = StatusCode::kInternal; break;
    case FailureClass::kContextOverflow:
    case FailureClass::kOutputBudget: code = StatusCode::kOutOfRange; break;
    case FailureClass::kConfig: code = StatusCode::kFailedPrecondition; break;
    case FailureClass::kQuota: code = StatusCode::kResourceExhausted; break;
    case FailureClass::kBadRequest: code = StatusCode::kInvalidArgument; break;
    case FailureClass::kToolFormat:
    case FailureClass::kToolArgs: code = StatusCode::kParseError; break;
    case FailureClass::kCancelled: code = StatusCode::kCancelled; break;
    default: break;
  }
  std::string text(kTagOpen);
  text += FailureClassName(c);
  text += "] ";
  text += message;
  return Status(code, std::move(text));
}

FailureClass FailureClassOf(const Status& status) {
  if (status.ok()) return FailureClass::kNone;
  const std::string& m = status.message();
  std::size_t pos = m.find(kTagOpen);
  if (pos == std::string::npos) return FailureClass::kNone;
  std::size_t start = pos + kTagOpen.size();
  std::size_t end = m.find(']', start);
  if (end == std::string::npos) return FailureClass::kNone;
  std::string_view name(m.data() + start, end - start);
  for (const auto& [k, n] : kNames)
    if (n == name) return k;
  return FailureClass::kNone;
}

}  // namespace seragen::llm
