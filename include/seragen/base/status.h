// Status: the error value returned across module boundaries.
//
// A Status is either OK or carries a code and a human-readable message that
// names what went wrong (key path, file, task id). Cheap to copy when OK.
// A module may refine the code with a typed detail (a std::error_code in its
// own category, e.g. llm::FailureClass): callers read it with detail(), never
// from the message text.
#pragma once

#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace seragen {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad input from the user (config, flags, patch text)
  kNotFound,         // a file, commit, key or task that does not exist
  kAlreadyExists,
  kFailedPrecondition,  // state does not allow the operation (lock held, dirty)
  kOutOfRange,
  kParseError,         // malformed YAML/JSON/diff/journal
  kIoError,            // filesystem or process failure
  kTimeout,            // a deadline passed
  kCancelled,          // stopped on request (shutdown)
  kUnavailable,        // transient: retrying may succeed
  kResourceExhausted,  // budget, quota or capacity used up
  kPermissionDenied,
  kUnimplemented,
  kDataLoss,  // stored data is torn or corrupt
  kInternal,  // a bug in seragen
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message, std::error_code detail = {})
      : code_(code), message_(std::move(message)), detail_(detail) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // The module's refinement of code() (e.g. an llm::FailureClass); a
  // default-constructed std::error_code when there is none.
  const std::error_code& detail() const { return detail_; }

  // message(), preceded by "[<category name>:<detail message>] " when there
  // is a detail: the form journals and trajectories keep.
  std::string Text() const;
  // "CODE: Text()", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "context: message", detail kept (no-op when OK).
  Status WithContext(std::string_view context) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_ && a.detail_ == b.detail_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::error_code detail_;
};

inline Status InvalidArgumentError(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFoundError(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status AlreadyExistsError(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
inline Status FailedPreconditionError(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
inline Status OutOfRangeError(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status ParseError(std::string m) { return {StatusCode::kParseError, std::move(m)}; }
inline Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status TimeoutError(std::string m) { return {StatusCode::kTimeout, std::move(m)}; }
inline Status CancelledError(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
inline Status UnavailableError(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status ResourceExhaustedError(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
inline Status PermissionDeniedError(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
inline Status UnimplementedError(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status DataLossError(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status InternalError(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

}  // namespace seragen

// Evaluates `expr` (a Status or Result); returns its Status from the caller if not OK.
#define SG_RETURN_IF_ERROR(expr)                                  \
  do {                                                            \
    auto&& sg_status_or_result_ = (expr);                         \
    if (!sg_status_or_result_.ok()) {                             \
      return ::seragen::internal::StatusOf(sg_status_or_result_); \
    }                                                             \
  } while (0)

namespace seragen::internal {
inline const Status& StatusOf(const Status& s) { return s; }
template <typename R>
inline auto StatusOf(const R& r) -> decltype(r.status()) {
  return r.status();
}
}  // namespace seragen::internal
