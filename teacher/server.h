// teacher::Server: the scripted teacher as an OpenAI-compatible HTTP server
// (Boost.Beast on Asio), embeddable in-process on an ephemeral port.
//
//   POST /v1/chat/completions   non-streaming and SSE
//   GET  /v1/models             model id and max_model_len (context window)
//   GET  /health                {"status":"ok"}
//
// HTTP/1.1 keep-alive; many concurrent connections on `threads` io threads.
// Thread-safety: Start/Stop from one owner thread; Counts() from any thread.
#pragma once

#include <memory>

#include "seragen/base/result.h"
#include "teacher/options.h"
#include "teacher/request_log.h"

namespace seragen::teacher {

class Server {
 public:
  Server();
  ~Server();  // Stop()s
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Validates options, loads the prompt files, binds and starts serving.
  // Returns the bound port (useful with port 0). Fails if already started.
  Result<int> Start(const TeacherOptions& options);

  // Closes the listener and every connection (including hung ones) and joins
  // the io threads. Idempotent.
  void Stop();

  int port() const;
  RequestCounts Counts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace seragen::teacher
