// ReplayServer: an in-process HTTP/1.1 server (Boost.Beast request parsing,
// raw asio writes) that answers with scripted replies, for client tests and
// benchmarks. Test-only code.
//
// Replies are matched by request path (query string ignored): queued replies
// for that path are used first, in order; otherwise the handler (if set);
// otherwise 404. Runs on its own thread; all methods are thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace seragen::testing {

using HeaderPair = std::pair<std::string, std::string>;

struct ScriptedReply {
  enum class Action {
    kRespond,       // status line, headers, chunks
    kReset,         // close the connection with RST right after the request
    kNeverAnswer,   // read the request, keep the connection open, say nothing
    kStallMidBody,  // promise a longer Content-Length, send the chunks, then stall
    kCloseMidBody,  // promise a longer Content-Length, send the chunks, then close
  };
  Action action = Action::kRespond;
  int status = 200;
  std::vector<HeaderPair> headers;     // Content-Type etc.
  std::vector<std::string> chunks;     // body, written piece by piece
  std::chrono::milliseconds delay{0};  // before anything is written
  std::chrono::milliseconds chunk_interval{0};
  bool chunked_encoding = false;  // Transfer-Encoding: chunked
  // Sends the chunks again and again (chunked encoding) until the client
  // goes away: an endless body.
  bool endless = false;
  // Content-Length sent instead of the real one (e.g. smaller than the body).
  std::optional<std::size_t> content_length;

  static ScriptedReply Json(int status, std::string body, std::vector<HeaderPair> headers = {});
  // Server-sent events: each entry is written as one chunk, verbatim.
  static ScriptedReply Sse(std::vector<std::string> pieces);
  static ScriptedReply WithAction(Action action);
};

struct ReceivedRequest {
  std::string method;
  std::string target;
  std::vector<HeaderPair> headers;  // names lower-cased
  std::string body;
  std::optional<std::string> Header(const std::string& lower_name) const;
};

class ReplayServer {
 public:
  // Listens on 127.0.0.1 (ephemeral port) with a large backlog.
  ReplayServer();
  ~ReplayServer();
  ReplayServer(const ReplayServer&) = delete;
  ReplayServer& operator=(const ReplayServer&) = delete;

  int port() const;
  std::string base_url() const;  // "http://127.0.0.1:PORT"

  void Enqueue(const std::string& path, ScriptedReply reply);
  void SetHandler(std::function<ScriptedReply(const ReceivedRequest&)> handler);

  std::vector<ReceivedRequest> requests() const;
  std::size_t request_count() const;
  std::size_t accepted_connections() const;
  std::size_t open_connections() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace seragen::testing
