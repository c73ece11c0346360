// Generic asynchronous HTTP client interface (no JSON knowledge).
//
// Contract for every implementation:
// - Send() is thread-safe and never blocks on the network.
// - `done` is invoked exactly once per Send(): with the response, a transport
//   error, or TransportError::kCancelled (after Call::Cancel() or client
//   shutdown). Implementations document the thread it runs on.
// - A streaming request (`on_body_chunk` set) delivers body bytes of 2xx
//   responses through the callback instead of Response::body; bodies of
//   other statuses are still collected into Response::body so errors can be
//   classified.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace seragen::http {

using Header = std::pair<std::string, std::string>;

struct Request {
  std::string method = "GET";  // GET or POST
  std::string url;
  std::vector<Header> headers;
  std::string body;
  // Deadline for the whole exchange (connect + send + full body).
  std::chrono::milliseconds timeout{600000};
  std::chrono::milliseconds connect_timeout{10000};
  // Streaming: called with each piece of a 2xx body as it arrives, on the
  // client's thread. Return false to abort the transfer (kAborted).
  std::function<bool(std::string_view)> on_body_chunk;
  // Header values that must never be logged (e.g. the Authorization value).
  // Used by DescribeForLog().
  std::vector<std::string> secret_values;
  // Caps on what the server may send (a server can send without end):
  // body bytes (streamed or collected, any status) and header bytes (all
  // header lines together). Past either the transfer stops with
  // kBodyTooLarge / kHeadersTooLarge. 0 = no cap.
  std::size_t max_body_bytes = kDefaultMaxBodyBytes;
  std::size_t max_header_bytes = kDefaultMaxHeaderBytes;

  static constexpr std::size_t kDefaultMaxBodyBytes = std::size_t{64} << 20;
  static constexpr std::size_t kDefaultMaxHeaderBytes = std::size_t{256} << 10;
};

enum class TransportError {
  kNone = 0,
  kBadUrl,         // malformed URL or unsupported scheme
  kResolveFailed,  // DNS
  kConnectFailed,  // refused / unreachable / connect timeout
  kTls,            // handshake or certificate failure
  kSendFailed,
  kConnectionLost,   // reset, closed before/while answering, truncated body
  kTimeout,          // the request deadline passed
  kAborted,          // on_body_chunk returned false
  kCancelled,        // Call::Cancel() or client shutdown
  kBodyTooLarge,     // the body passed Request::max_body_bytes
  kHeadersTooLarge,  // the headers passed Request::max_header_bytes (or curl's own per-line cap)
  kBadResponse,      // the reply is not HTTP (e.g. bytes left over from a short Content-Length)
  kOther,
};

std::string_view TransportErrorName(TransportError e);

struct Timings {
  std::chrono::microseconds connect{0};
  std::chrono::microseconds first_byte{0};
  std::chrono::microseconds total{0};
};

struct Response {
  int status = 0;               // 0 when no status line was received
  std::vector<Header> headers;  // names lower-cased, in arrival order
  std::string body;
  TransportError error = TransportError::kNone;
  std::string error_message;  // empty when error == kNone
  Timings timings;

  bool transport_ok() const { return error == TransportError::kNone; }
  // Case-insensitive lookup of the last header with this name.
  std::optional<std::string> FindHeader(std::string_view name) const;
};

class Call {
 public:
  virtual ~Call() = default;
  // Stops the request if still in flight; `done` then gets kCancelled.
  // Thread-safe; a no-op after completion.
  virtual void Cancel() = 0;
};

class Client {
 public:
  virtual ~Client() = default;
  virtual std::shared_ptr<Call> Send(Request request, std::function<void(Response)> done) = 0;
};

// "POST http://host/v1/chat/completions (1234 bytes)" with header values
// listed in request.secret_values replaced by "***". For request logs.
std::string DescribeForLog(const Request& request);

}  // namespace seragen::http
