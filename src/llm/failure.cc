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

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "llm"; }
  std::string message(int value) const override {
    return std::string(FailureClassName(static_cast<FailureClass>(value)));
  }
};
}  // namespace

const std::error_category& FailureCategory() {
  static const Category category;
  return category;
}

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
  return Status(code, std::string(message), std::error_code(static_cast<int>(c), FailureCategory()));
}

FailureClass FailureClassOf(const Status& status) {
  if (status.ok() || status.detail().category() != FailureCategory()) return FailureClass::kNone;
  return static_cast<FailureClass>(status.detail().value());
}

}  // namespace seragen::llm
