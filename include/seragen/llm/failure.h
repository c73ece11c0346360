// Failure classes of an LLM call (docs/LLM_CLIENT.md) and their
// encoding in a Status, so errors stay ordinary Result<T> values and callers
// recover the class with FailureClassOf().
//
// The class is the Status's typed detail (a std::error_code in the "llm"
// category), never read from the message; it survives Status::WithContext().
// Status::Text() shows it as "[llm:<name>] " before the message.
#pragma once

#include <string>
#include <string_view>
#include <system_error>

#include "seragen/base/status.h"

namespace seragen::llm {

enum class FailureClass {
  kNone = 0,
  kTransientNetwork,  // refused, reset, DNS, TLS, timeout: retried with back-off
  kTransientServer,   // 408/409/5xx, error event inside a stream, stream without finish: retried
  kServerNotReady,    // 503 "Loading model" / no_available_workers: retried after a probe
  kRateLimited,       // 429: retried honoring Retry-After, with a shared slowdown per endpoint
  kContextOverflow,   // prompt does not fit (incl. silent truncation): never retried
  kOutputBudget,      // max_tokens too large for what is left: lowered once and retried
  kConfig,            // 401/403/404, tool choice not enabled on the server: abort the run
  kQuota,             // 402, insufficient_quota: stop scheduling, keep state resumable
  kBadRequest,        // other 4xx the server rejected: not retried, this call fails
  kToolFormat,        // tool markup left in content with no parsed calls
  kToolArgs,          // invalid JSON arguments or schema mismatch
  kCancelled,         // the caller cancelled or the client shut down
};

std::string_view FailureClassName(FailureClass c);

// Who a class blames (model, infrastructure, configuration) is decided in one
// place, pipeline::ClassifyFailure (pipeline/failure_blame.h).
// True for classes the retry policy may retry.
bool IsRetryable(FailureClass c);

// The category of failure-class error codes (name "llm"; a value's message
// is its FailureClassName).
const std::error_category& FailureCategory();
// A non-OK Status whose detail is the class (StatusCode chosen to match).
Status MakeFailure(FailureClass c, std::string_view message);
// The class in `status`'s detail; kNone for OK statuses and other details.
FailureClass FailureClassOf(const Status& status);

}  // namespace seragen::llm
