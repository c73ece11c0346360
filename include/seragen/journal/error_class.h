// The class of a journal error: who the failure blames and what happened
// (journal/outcomes.h has the rest of the outcome vocabulary). Pure;
// thread-safe.
#pragma once

#include <compare>
#include <string>
#include <string_view>

namespace seragen::journal {

// Who a failure blames, in name order: the configuration (the user's
// endpoint, key or model settings: fixed by changing the config), the
// infrastructure (the machinery: a resumed run retries), the model (its own
// output or its context: retrying the same task does not help).
enum class ErrorFamily { kConfig, kInfra, kModel, kUnknown };

// "config", "infra", "model", "unknown".
std::string_view ErrorFamilyName(ErrorFamily family);

// The class of a journal error: the family and what happened within it
// (e.g. {kInfra, "issue.rate_limited"}). On disk "<family>.<cause>";
// a class whose prefix is no known family keeps its whole text as the cause
// with family kUnknown, and encodes back unchanged.
struct ErrorClass {
  ErrorFamily family = ErrorFamily::kUnknown;
  std::string cause;

  friend auto operator<=>(const ErrorClass&, const ErrorClass&) = default;
};

// "infra.issue.rate_limited"; the cause alone for kUnknown.
std::string ErrorClassName(const ErrorClass& error_class);
// Inverse of ErrorClassName; total.
ErrorClass ParseErrorClass(std::string_view text);

}  // namespace seragen::journal
