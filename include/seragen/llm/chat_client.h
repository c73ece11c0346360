// ChatClient: the asynchronous interface the agent loop uses. Real:
// HttpChatClient; scripted: FakeChatClient.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "seragen/base/result.h"
#include "seragen/llm/failure.h"
#include "seragen/llm/types.h"

namespace seragen::llm {

struct CallOptions {
  // Deadline for one HTTP attempt (connect + full answer).
  std::chrono::milliseconds attempt_timeout{600000};
  // Deadline for the whole call: queueing, all attempts and back-off.
  std::chrono::milliseconds deadline{1800000};
  bool stream = false;
  // When the server reports fewer prompt tokens than this, the prompt was
  // silently truncated (SGLang --allow-auto-truncate): kContextOverflow.
  std::optional<std::int64_t> min_expected_prompt_tokens;
  // For log lines, and the call's endpoint affinity: calls with the same
  // task id go to the endpoint that served the previous one (it holds their
  // common prompt prefix in its cache) while it is healthy and not
  // overloaded (EndpointPool). Empty: no affinity.
  std::string task_id;
};

class CallHandle {
 public:
  virtual ~CallHandle() = default;
  // Stops the call (in flight, queued or backing off): `done` then receives
  // a kCancelled failure, unless it already ran. Thread-safe.
  virtual void Cancel() = 0;
};

// Failures are non-OK Status values whose typed detail is their
// FailureClass (FailureClassOf(status)). Tool problems of a successful answer are not
// failures: see ChatResponse::tool_issue.
using ChatCallback = std::function<void(Result<ChatResponse>)>;

class ChatClient {
 public:
  virtual ~ChatClient() = default;
  // `done` is invoked exactly once; the implementation documents the thread.
  virtual std::shared_ptr<CallHandle> Complete(ChatRequest request, CallOptions options, ChatCallback done) = 0;
  // Set once the client has decided the run must stop (the same
  // configuration error on consecutive calls, or a quota refusal); the
  // Status says why. Callers stop starting work. Thread-safe.
  virtual std::optional<Status> RunStopStatus() const { return std::nullopt; }
};

}  // namespace seragen::llm
