// FakeChatClient: a scripted ChatClient for tests of code that talks to a
// model (agent loop, issue writer). Not a network fake: no HTTP involved.
//
// Each Complete() records the request and answers with the next scripted
// outcome; when the script is empty the handler answers (if set), otherwise
// a kTransientServer failure saying the script ran out. `done` runs
// synchronously inside Complete(), on the caller's thread. Thread-safe.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "seragen/llm/chat_client.h"

namespace seragen::llm {

class FakeChatClient final : public ChatClient {
 public:
  using Handler = std::function<Result<ChatResponse>(const ChatRequest&)>;

  void PushResponse(ChatResponse response);
  void PushFailure(FailureClass failure_class, std::string message);
  void SetHandler(Handler handler);
  // What RunStopStatus() reports (tests of callers that stop on it).
  void SetRunStop(std::optional<Status> stop);
  std::optional<Status> RunStopStatus() const override;

  std::shared_ptr<CallHandle> Complete(ChatRequest request, CallOptions options, ChatCallback done) override;

  std::vector<ChatRequest> requests() const;
  std::size_t call_count() const;
  std::size_t remaining() const;

 private:
  mutable std::mutex mu_;
  std::deque<Result<ChatResponse>> script_;
  Handler handler_;
  std::optional<Status> run_stop_;
  std::vector<ChatRequest> requests_;
};

// A plain text answer (finish_reason "stop").
ChatResponse MakeTextResponse(std::string content);
// One tool call (finish_reason "tool_calls"); arguments parsed as a server
// answer would be, so invalid JSON yields tool_issue kToolArgs.
ChatResponse MakeToolCallResponse(std::string name, std::string arguments_raw, std::string id = "call_0");

}  // namespace seragen::llm
