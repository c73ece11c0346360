#include "testing/fake_chat_client.h"

#include "seragen/llm/wire_codec.h"

namespace seragen::llm {

namespace {
class NoopHandle final : public CallHandle {
 public:
  void Cancel() override {}
};
}  // namespace

void FakeChatClient::PushResponse(ChatResponse response) {
  std::lock_guard<std::mutex> lock(mu_);
  script_.emplace_back(std::move(response));
}

void FakeChatClient::PushFailure(FailureClass failure_class, std::string message) {
  std::lock_guard<std::mutex> lock(mu_);
  script_.emplace_back(MakeFailure(failure_class, message));
}

void FakeChatClient::SetRunStop(std::optional<Status> stop) {
  std::lock_guard<std::mutex> lock(mu_);
  run_stop_ = std::move(stop);
}

std::optional<Status> FakeChatClient::RunStopStatus() const {
  std::lock_guard<std::mutex> lock(mu_);
  return run_stop_;
}

void FakeChatClient::SetHandler(Handler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  handler_ = std::move(handler);
}

std::shared_ptr<CallHandle> FakeChatClient::Complete(ChatRequest request, CallOptions, ChatCallback done) {
  std::optional<Result<ChatResponse>> outcome;
  Handler handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
    if (!script_.empty()) {
      outcome.emplace(std::move(script_.front()));
      script_.pop_front();
    } else {
      handler = handler_;
    }
  }
  if (!outcome) {
    if (handler) outcome.emplace(handler(request));
    else outcome.emplace(MakeFailure(FailureClass::kTransientServer, "FakeChatClient: no scripted reply left"));
  }
  done(std::move(*outcome));
  return std::make_shared<NoopHandle>();
}

std::vector<ChatRequest> FakeChatClient::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

std::size_t FakeChatClient::call_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_.size();
}

std::size_t FakeChatClient::remaining() const {
  std::lock_guard<std::mutex> lock(mu_);
  return script_.size();
}

ChatResponse MakeTextResponse(std::string content) {
  ChatResponse r;
  r.content = std::move(content);
  r.finish_reason = "stop";
  FinalizeResponse(r);
  return r;
}

ChatResponse MakeToolCallResponse(std::string name, std::string arguments_raw, std::string id) {
  ChatResponse r;
  r.content_was_null = true;
  r.finish_reason = "tool_calls";
  ToolCall call;
  call.id = std::move(id);
  call.name = std::move(name);
  call.arguments_raw = std::move(arguments_raw);
  r.tool_calls.push_back(std::move(call));
  FinalizeResponse(r);
  return r;
}

}  // namespace seragen::llm
