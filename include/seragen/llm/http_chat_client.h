// HttpChatClient: ChatClient over an http::Client (normally CurlClient on an
// EventLoop) with an endpoint pool, failure classification, retries with
// back-off, per-call deadlines and cancellation.
//
// Threading: every piece of work runs on `executor` (give it the EventLoop
// the CurlClient uses); `done` runs there too. Back-off and deadlines are
// `executor.RunAfter` timers. The one exception: destroying the client
// completes calls still open with kCancelled on the destroying thread.
// `http`, `executor` and `clock` must outlive the client.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "seragen/base/clock.h"
#include "seragen/base/executor.h"
#include "seragen/http/http_client.h"
#include "seragen/llm/chat_client.h"
#include "seragen/llm/endpoint_pool.h"
#include "seragen/llm/retry_policy.h"
#include "seragen/llm/wire_codec.h"

namespace seragen::llm {

struct ChatClientOptions {
  std::vector<EndpointOptions> endpoints;  // at least one
  EndpointPoolOptions pool;
  RetryPolicyOptions retry;
  WireOptions wire;                      // `stream` is taken from CallOptions
  std::uint64_t jitter_seed = 0x5eed;    // back-off jitter (Rng), for reproducible timing
  long long output_budget_margin = 256;  // tokens kept free when lowering max_tokens
  std::chrono::milliseconds probe_timeout{10000};
  // TCP/TLS connect limit of each attempt (never above the attempt timeout).
  std::chrono::milliseconds connect_timeout{10000};
  // The same configuration error on this many consecutive calls stops the
  // run (RunStopStatus); below it each such call just fails (not retried).
  int config_error_limit = 3;
  // Bytes one answer may take on the wire (body or event stream). Past it the
  // attempt fails as kTransientServer naming the endpoint and the cap, so an
  // endless answer costs at most this much memory. 0 = no cap.
  std::size_t max_response_bytes = http::Request::kDefaultMaxBodyBytes;
};

// Calls the client held back although they were ready to send: how often a
// hold began and how long some call waited, by what held it.
struct CallHolds {
  std::uint64_t global_cap_holds = 0;    // llm.max_concurrency
  std::uint64_t endpoint_cap_holds = 0;  // every usable endpoint at its max_concurrency
  std::uint64_t unavailable_holds = 0;   // every endpoint ejected or rate limited
  std::chrono::milliseconds global_cap{0};
  std::chrono::milliseconds endpoint_caps{0};
  std::chrono::milliseconds unavailable{0};
};

class HttpChatClient final : public ChatClient {
 public:
  HttpChatClient(http::Client& http, Executor& executor, const Clock& clock, ChatClientOptions options);
  ~HttpChatClient() override;
  HttpChatClient(const HttpChatClient&) = delete;
  HttpChatClient& operator=(const HttpChatClient&) = delete;

  std::shared_ptr<CallHandle> Complete(ChatRequest request, CallOptions options, ChatCallback done) override;

  // Set by the same kConfig failure on config_error_limit consecutive calls,
  // or by the first kQuota failure. After a configuration stop, new and
  // queued calls fail at once with that status (no request is sent).
  // Thread-safe.
  std::optional<Status> RunStopStatus() const override;

  std::vector<EndpointState> EndpointSnapshot() const;
  // Hold totals so far (a hold still on counts up to now). A cap that holds
  // calls back is also logged (a warning when it starts, then at most once a
  // minute while it lasts). Thread-safe.
  CallHolds Holds() const;

  // Health and identity probe of every endpoint (GET {base}/models, plus
  // /props for llama.cpp): records the served model id and context window;
  // endpoints that fail are ejected and probed again later. `done` gets the
  // resulting snapshot, on the executor. For run start-up checks.
  void ProbeAll(std::function<void(std::vector<EndpointState>)> done);

  struct Core;

 private:
  std::shared_ptr<Core> core_;
};

}  // namespace seragen::llm
