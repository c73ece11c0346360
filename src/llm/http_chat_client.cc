#include "seragen/llm/http_chat_client.h"

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>

#include "llm/config_error_gate.h"
#include "llm/error_classifier.h"
#include "seragen/base/endpoint_name.h"
#include "seragen/base/log.h"
#include "seragen/base/rng.h"
#include "seragen/llm/models_probe.h"
#include "seragen/llm/sse_assembler.h"

namespace seragen::llm {

using std::chrono::duration_cast;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {

struct CallState {
  enum class Phase { kQueued, kInFlight, kBackoff, kDone };
  std::uint64_t id = 0;
  ChatRequest request;
  CallOptions options;
  ChatCallback done;
  std::string body;
  Clock::SteadyTime started{};
  Clock::SteadyTime deadline_at{};
  Clock::SteadyTime attempt_started{};
  int attempts = 0;
  milliseconds backoff_spent{0};
  bool output_budget_lowered = false;
  bool cancelled = false;
  Phase phase = Phase::kQueued;
  std::shared_ptr<http::Call> http_call;
  std::optional<std::size_t> endpoint;
  std::unique_ptr<SseAssembler> assembler;
};

using StatePtr = std::shared_ptr<CallState>;

}  // namespace

struct HttpChatClient::Core : std::enable_shared_from_this<HttpChatClient::Core> {
  Core(http::Client& http, Executor& executor, const Clock& clock, ChatClientOptions opts)
      : http(http),
        executor(executor),
        clock(clock),
        options(std::move(opts)),
        pool(options.endpoints, options.pool, clock),
        rng(options.jitter_seed),
        config_gate(options.config_error_limit) {}

  http::Client& http;
  Executor& executor;
  const Clock& clock;
  ChatClientOptions options;
  EndpointPool pool;
  Rng rng;
  log::Logger logger{"llm"};

  mutable std::recursive_mutex mu;
  bool shut_down = false;
  std::uint64_t next_id = 1;
  std::map<std::uint64_t, StatePtr> active;
  std::deque<StatePtr> queue;
  std::optional<Status> run_stop;
  bool config_stop = false;  // run_stop is a configuration stop: calls fail without being sent
  ConfigErrorGate config_gate;
  std::optional<Clock::SteadyTime> wake_at;
  std::vector<std::function<void()>> pending_callbacks;
  AcquireHold hold = AcquireHold::kNone;  // what holds the queue's head back now
  Clock::SteadyTime hold_since{};
  CallHolds holds;
  std::optional<Clock::SteadyTime> hold_logged_at;

  // Runs `fn` under the lock, then the user callbacks it produced, unlocked.
  template <typename F>
  void Locked(F&& fn) {
    {
      std::lock_guard<std::recursive_mutex> lock(mu);
      fn();
    }
    DrainCallbacks();
  }

  void DrainCallbacks() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard<std::recursive_mutex> lock(mu);
      callbacks.swap(pending_callbacks);
    }
    for (auto& cb : callbacks) cb();
  }

  void Finish(const StatePtr& s, Result<ChatResponse> result) {
    if (s->phase == CallState::Phase::kDone) return;
    s->phase = CallState::Phase::kDone;
    active.erase(s->id);
    queue.erase(std::remove(queue.begin(), queue.end(), s), queue.end());
    if (result.ok()) {
      auto& t = result->timings;
      t.attempts = s->attempts;
      t.backoff = duration_cast<microseconds>(s->backoff_spent);
      t.total = duration_cast<microseconds>(clock.Now() - s->started);
    }
    auto done = std::move(s->done);
    s->assembler.reset();
    s->http_call.reset();
    pending_callbacks.push_back([done = std::move(done), result = std::move(result)]() mutable {
      if (done) done(std::move(result));
    });
  }

  void FinishFailure(const StatePtr& s, FailureClass c, const std::string& message) {
    std::string where = s->endpoint ? " [endpoint " + pool.options(*s->endpoint).base_url + "]" : "";
    Finish(s, MakeFailure(c, message + where + " (attempts: " + std::to_string(s->attempts) + ")"));
  }

  // ---- scheduling (under the lock) ----
  void Pump() {
    if (shut_down) return;
    for (std::size_t index : pool.DueProbes()) SendProbe(index);
    auto now = clock.Now();
    while (!queue.empty()) {
      StatePtr s = queue.front();
      if (config_stop) {
        queue.pop_front();
        Finish(s, MakeFailure(FailureClass::kConfig, "not sent, the run is stopping: " + run_stop->message()));
        continue;
      }
      if (now >= s->deadline_at) {
        queue.pop_front();
        FinishFailure(s, FailureClass::kTransientNetwork, "call deadline passed while waiting for a usable endpoint");
        continue;
      }
      if (config_gate.HoldsNewCalls(InFlight())) break;  // woken by the next answer
      AcquireHold why = AcquireHold::kNone;
      auto index = pool.Acquire(s->options.task_id, &why);
      if (!index) {
        NoteHold(why);
        break;
      }
      queue.pop_front();
      Dispatch(s, *index);
    }
    if (queue.empty()) NoteHold(AcquireHold::kNone);
    if (!queue.empty()) ScheduleWake();
  }

  int InFlight() const {
    int n = 0;
    for (const auto& [id, s] : active) n += s->phase == CallState::Phase::kInFlight ? 1 : 0;
    return n;
  }

  // ---- holds (under the lock) ----
  static std::chrono::milliseconds* HoldTime(CallHolds& h, AcquireHold kind) {
    switch (kind) {
      case AcquireHold::kGlobalCap: return &h.global_cap;
      case AcquireHold::kEndpointCaps: return &h.endpoint_caps;
      case AcquireHold::kNoneAvailable: return &h.unavailable;
      case AcquireHold::kNone: break;
    }
    return nullptr;
  }

  CallHolds HoldsNow() const {
    CallHolds h = holds;
    if (auto* t = HoldTime(h, hold)) *t += duration_cast<milliseconds>(clock.Now() - hold_since);
    return h;
  }

  void NoteHold(AcquireHold kind) {
    auto now = clock.Now();
    if (kind != hold) {
      if (auto* t = HoldTime(holds, hold)) *t += duration_cast<milliseconds>(now - hold_since);
      hold = kind;
      hold_since = now;
      pool.SetHold(kind);
      if (kind == AcquireHold::kGlobalCap) ++holds.global_cap_holds;
      if (kind == AcquireHold::kEndpointCaps) ++holds.endpoint_cap_holds;
      if (kind == AcquireHold::kNoneAvailable) ++holds.unavailable_holds;
    }
    bool cap = kind == AcquireHold::kGlobalCap || kind == AcquireHold::kEndpointCaps;
    if (!cap || (hold_logged_at && now - *hold_logged_at < std::chrono::minutes(1))) return;
    hold_logged_at = now;
    std::string limit = kind == AcquireHold::kGlobalCap
                            ? "llm.max_concurrency (" + std::to_string(options.pool.max_concurrency) + ")"
                            : "each endpoint's max_concurrency (llm.max_concurrency_per_endpoint)";
    logger.Warn(
        "{} ready request(s) held back by {} ({} call(s) in flight or backing off); if the endpoints have free "
        "capacity, raise it",
        queue.size(), limit, active.size() - queue.size());
  }

  void ScheduleWake() {
    std::optional<Clock::SteadyTime> next = pool.NextChange();
    for (const auto& s : queue) {
      if (!next || s->deadline_at < *next) next = s->deadline_at;
    }
    if (!next) return;  // woken by the next Release
    if (wake_at && *wake_at <= *next && *wake_at > clock.Now()) return;
    wake_at = *next;
    auto delay = *next - clock.Now();
    std::weak_ptr<Core> weak = weak_from_this();
    executor.RunAfter(delay, [weak, at = *next] {
      auto core = weak.lock();
      if (!core) return;
      core->Locked([&] {
        if (core->wake_at == at) core->wake_at.reset();
        core->Pump();
      });
    });
  }

  void Dispatch(const StatePtr& s, std::size_t index) {
    s->phase = CallState::Phase::kInFlight;
    s->endpoint = index;
    ++s->attempts;
    s->attempt_started = clock.Now();
    const EndpointOptions& ep = pool.options(index);
    http::Request req;
    req.method = "POST";
    req.url = ep.base_url + "/chat/completions";
    if (ep.wire) {  // this endpoint's server profile
      WireOptions wire = *ep.wire;
      wire.stream = s->options.stream;
      auto body = EncodeChatRequest(s->request, wire);
      if (!body.ok()) {
        pool.Release(index, FailureClass::kBadRequest);  // our fault: no effect on the endpoint's health
        FinishFailure(s, FailureClass::kBadRequest, "cannot encode request: " + body.status().message());
        return;
      }
      req.body = std::move(*body);
    } else {
      req.body = s->body;
    }
    auto remaining = duration_cast<milliseconds>(s->deadline_at - clock.Now());
    req.timeout = std::max(milliseconds(1), std::min(s->options.attempt_timeout, remaining));
    req.connect_timeout = std::min(req.timeout, options.connect_timeout);
    req.headers.emplace_back("Content-Type", "application/json");
    req.max_body_bytes = options.max_response_bytes;
    AddEndpointHeaders(ep, req);
    if (s->options.stream) {
      req.headers.emplace_back("Accept", "text/event-stream");
      s->assembler = std::make_unique<SseAssembler>(options.max_response_bytes);
      std::weak_ptr<Core> weak = weak_from_this();
      int attempt = s->attempts;
      req.on_body_chunk = [weak, s, attempt](std::string_view piece) {
        auto core = weak.lock();
        if (!core) return false;
        std::lock_guard<std::recursive_mutex> lock(core->mu);
        if (s->attempts != attempt || !s->assembler) return false;
        return s->assembler->Feed(piece);
      };
    }
    logger.Debug("task={} call={} attempt {} -> {}", s->options.task_id, s->id, s->attempts, http::DescribeForLog(req));
    std::weak_ptr<Core> weak = weak_from_this();
    int attempt = s->attempts;
    auto call = http.Send(std::move(req), [weak, s, attempt](http::Response response) {
      auto core = weak.lock();
      if (!core) return;
      core->Locked([&] { core->OnResponse(s, attempt, std::move(response)); });
    });
    if (s->phase == CallState::Phase::kInFlight && s->attempts == attempt) s->http_call = std::move(call);
  }

  // ---- outcome of one attempt (under the lock) ----
  void OnResponse(const StatePtr& s, int attempt, http::Response response) {
    if (s->phase != CallState::Phase::kInFlight || s->attempts != attempt) return;
    s->http_call.reset();
    std::size_t index = *s->endpoint;
    Result<ChatResponse> result = Evaluate(s, response);
    FailureClass failure = FailureClassOf(result.status());
    pool.Release(index, failure);  // kCancelled and model-side classes do not affect health
    if (shut_down) return;
    if (result.ok()) {
      config_gate.OnSuccess();
      auto& r = *result;
      r.endpoint = EndpointName(pool.options(index).base_url);  // never its credentials
      pool.RecordAnswer(index, r.usage.present ? r.usage.completion_tokens : 0, response.timings.total);
      if (r.usage.present && r.usage.cached_prompt_tokens) {
        pool.RecordUsage(index, r.usage.prompt_tokens, *r.usage.cached_prompt_tokens);  // hit rate of known counts
      }
      r.timings.last_attempt = response.timings.total;
      r.timings.first_byte = response.timings.first_byte;
      Finish(s, std::move(result));
      Pump();
      return;
    }
    HandleFailure(s, index, failure, result.status(), response);
    Pump();
  }

  Result<ChatResponse> Evaluate(const StatePtr& s, const http::Response& response) {
    if (s->cancelled) return MakeFailure(FailureClass::kCancelled, "call cancelled");
    if (!response.transport_ok()) {
      if (response.error == http::TransportError::kAborted && s->assembler && s->assembler->failed()) {
        return s->assembler->failure();
      }
      Classification c = ClassifyTransport(response.error, response.error_message);
      if (response.error == http::TransportError::kBodyTooLarge) c.message += " (llm.max_response_bytes)";
      return MakeFailure(c.failure_class, c.message);
    }
    if (response.status < 200 || response.status >= 300) {
      Classification c = ClassifyHttpError(response.status, response.body);
      return MakeFailure(c.failure_class, c.message);
    }
    Result<ChatResponse> decoded =
        s->options.stream && s->assembler ? s->assembler->Finish() : DecodeChatResponse(response.body);
    if (!decoded.ok()) return decoded;
    const ChatResponse& r = *decoded;
    const Usage& u = r.usage;
    if (u.present && u.completion_tokens == 0 && r.finish_reason == "length" && r.content.empty() &&
        r.tool_calls.empty()) {
      return MakeFailure(FailureClass::kContextOverflow,
                         "empty completion with finish_reason length: the prompt filled the context "
                         "(server-side auto-truncation)");
    }
    if (u.present && s->options.min_expected_prompt_tokens && u.prompt_tokens > 0 &&
        u.prompt_tokens < *s->options.min_expected_prompt_tokens) {
      return MakeFailure(FailureClass::kContextOverflow, "server counted " + std::to_string(u.prompt_tokens) +
                                                             " prompt tokens, expected at least " +
                                                             std::to_string(*s->options.min_expected_prompt_tokens) +
                                                             ": the prompt was silently truncated");
    }
    return decoded;
  }

  void HandleFailure(const StatePtr& s, std::size_t index, FailureClass failure, const Status& status,
                     const http::Response& response) {
    const std::string& message = status.message();
    if (failure == FailureClass::kCancelled || s->cancelled) {
      Finish(s, MakeFailure(FailureClass::kCancelled, "call cancelled"));
      return;
    }
    if (failure == FailureClass::kOutputBudget && !s->output_budget_lowered && s->request.max_tokens) {
      long long current = *s->request.max_tokens;
      long long lowered = SuggestedMaxTokens(message, options.output_budget_margin).value_or(current / 2);
      if (lowered > 0 && lowered < current) {
        s->output_budget_lowered = true;
        s->request.max_tokens = lowered;
        WireOptions wire = options.wire;
        wire.stream = s->options.stream;
        auto body = EncodeChatRequest(s->request, wire);
        if (body.ok()) {
          logger.Warn("task={} call={}: max_tokens {} too large, retrying once with {}", s->options.task_id, s->id,
                      current, lowered);
          s->body = std::move(*body);
          s->phase = CallState::Phase::kQueued;
          queue.push_front(s);
          return;
        }
      }
    }
    if (failure == FailureClass::kConfig) {
      // Never retried. The same error on config_error_limit consecutive
      // calls stops the run.
      if (config_gate.OnConfigError(message) && !config_stop) {
        config_stop = true;
        run_stop = MakeFailure(FailureClass::kConfig, "the endpoint rejected the same request on " +
                                                          std::to_string(config_gate.count()) +
                                                          " consecutive calls: " + message);
        logger.Error("stopping the run: {}", run_stop->message());
      } else {
        logger.Error("task={} configuration error ({} of {} in a row stop the run): {}", s->options.task_id,
                     config_gate.count(), config_gate.limit(), message);
      }
      FinishFailure(s, failure, message);
      return;
    }
    if (failure == FailureClass::kQuota) {
      if (!run_stop) run_stop = status;
      logger.Error("task={} {}", s->options.task_id, message);
      FinishFailure(s, failure, message);
      return;
    }
    RetryHints hints = ReadRetryHints(response, clock.WallNow());
    RetryDecision decision = DecideRetry(options.retry, failure, s->attempts, hints, s->backoff_spent, rng);
    if (failure == FailureClass::kRateLimited) {
      pool.SlowDown(index, hints.retry_after.value_or(decision.delay));
    }
    if (decision.retry && clock.Now() + decision.delay >= s->deadline_at) {
      decision.retry = false;
      decision.reason = "call deadline would pass before the next attempt";
    }
    if (!decision.retry) {
      std::string reason = IsRetryable(failure) ? "; " + decision.reason : "";
      FinishFailure(s, failure, message + reason);
      return;
    }
    logger.Warn("task={} call={} attempt {} failed ({}), retrying in {} ms: {}", s->options.task_id, s->id, s->attempts,
                FailureClassName(failure), decision.delay.count(), message);
    s->phase = CallState::Phase::kBackoff;
    s->backoff_spent += decision.delay;
    std::weak_ptr<Core> weak = weak_from_this();
    executor.RunAfter(decision.delay, [weak, s] {
      auto core = weak.lock();
      if (!core) return;
      core->Locked([&] {
        if (core->shut_down || s->phase != CallState::Phase::kBackoff) return;
        s->phase = CallState::Phase::kQueued;
        core->queue.push_front(s);
        core->Pump();
      });
    });
  }

  // ---- probes of ejected endpoints ----

  // GET {base}/models (+ {root}/props for llama.cpp, whose served context is
  // only there). Success reinstates the endpoint; failure (re-)ejects it.
  // `after` runs under the lock once the probe is settled.
  void SendProbe(std::size_t index, std::function<void()> after = {}) {
    const EndpointOptions& ep = pool.options(index);
    std::weak_ptr<Core> weak = weak_from_this();
    http.Send(llm::ProbeRequest(ep, ep.base_url + "/models", options.probe_timeout),
              [weak, index, after](http::Response response) {
                auto core = weak.lock();
                if (!core) return;
                core->Locked([&] {
                  if (core->shut_down) return;
                  std::optional<ModelsReport> report;
                  if (response.transport_ok() && response.status == 200) {
                    if (auto parsed = ParseModelsResponse(response.body); parsed.ok()) report = std::move(*parsed);
                  }
                  if (!report) {
                    core->pool.ProbeFailed(index);
                    core->logger.Warn("endpoint {} failed its /models probe ({})", core->pool.options(index).base_url,
                                      response.transport_ok() ? "HTTP " + std::to_string(response.status)
                                                              : std::string(http::TransportErrorName(response.error)));
                    if (after) after();
                    core->Pump();
                    return;
                  }
                  const ModelInfo& m = report->models.front();
                  if (report->server_kind == "llamacpp") {
                    core->SendPropsProbe(index, m.id, m.context_window, after);
                    return;
                  }
                  core->Reinstate(index, m.context_window, m.id, after);
                });
              });
  }

  void SendPropsProbe(std::size_t index, std::string model_id, std::optional<std::int64_t> fallback,
                      std::function<void()> after) {
    const EndpointOptions& ep = pool.options(index);
    std::weak_ptr<Core> weak = weak_from_this();
    http.Send(llm::ProbeRequest(ep, ServerRoot(ep.base_url) + "/props", options.probe_timeout),
              [weak, index, model_id, fallback, after](http::Response response) {
                auto core = weak.lock();
                if (!core) return;
                core->Locked([&] {
                  if (core->shut_down) return;
                  std::optional<std::int64_t> context = fallback;
                  if (response.transport_ok() && response.status == 200) {
                    if (auto n = ParseLlamaCppPropsContext(response.body); n.ok()) context = *n;
                  }
                  core->Reinstate(index, context, model_id, after);
                });
              });
  }

  void Reinstate(std::size_t index, std::optional<std::int64_t> context, const std::string& model_id,
                 const std::function<void()>& after) {
    bool was_ejected = pool.Snapshot()[index].ejected;
    pool.ProbeSucceeded(index, context, model_id);
    if (was_ejected) logger.Info("endpoint {} is back", pool.options(index).base_url);
    if (after) after();
    Pump();
  }

  void ProbeAll(std::function<void(std::vector<EndpointState>)> done) {
    if (pool.size() == 0) {
      pending_callbacks.push_back([done] { done({}); });
      return;
    }
    auto remaining = std::make_shared<std::size_t>(pool.size());
    for (std::size_t i = 0; i < pool.size(); ++i) {
      SendProbe(i, [this, remaining, done] {
        if (--*remaining == 0) {
          auto snapshot = pool.Snapshot();
          pending_callbacks.push_back([done, snapshot] { done(snapshot); });
        }
      });
    }
  }

  void Cancel(std::uint64_t id) {
    auto it = active.find(id);
    if (it == active.end()) return;
    StatePtr s = it->second;
    s->cancelled = true;
    if (s->phase == CallState::Phase::kInFlight && s->http_call) {
      s->http_call->Cancel();  // OnResponse finishes it
      return;
    }
    Finish(s, MakeFailure(FailureClass::kCancelled, "call cancelled"));
  }

  void Shutdown() {
    shut_down = true;
    auto calls = active;
    for (auto& [id, s] : calls) {
      if (s->http_call) s->http_call->Cancel();
      Finish(s, MakeFailure(FailureClass::kCancelled, "LLM client shut down"));
    }
    queue.clear();
  }
};

namespace {
class HttpCallHandle final : public CallHandle {
 public:
  HttpCallHandle(std::weak_ptr<HttpChatClient::Core> core, std::uint64_t id) : core_(std::move(core)), id_(id) {}
  void Cancel() override {
    auto core = core_.lock();
    if (!core) return;
    std::weak_ptr<HttpChatClient::Core> weak = core;
    core->executor.Post([weak, id = id_] {
      auto c = weak.lock();
      if (!c) return;
      c->Locked([&] { c->Cancel(id); });
    });
  }

 private:
  std::weak_ptr<HttpChatClient::Core> core_;
  std::uint64_t id_;
};
}  // namespace

void HttpChatClient::ProbeAll(std::function<void(std::vector<EndpointState>)> done) {
  std::weak_ptr<Core> weak = core_;
  core_->executor.Post([weak, done = std::move(done)] {
    auto core = weak.lock();
    if (!core) return;
    core->Locked([&] { core->ProbeAll(done); });
  });
}

HttpChatClient::HttpChatClient(http::Client& http, Executor& executor, const Clock& clock, ChatClientOptions options)
    : core_(std::make_shared<Core>(http, executor, clock, std::move(options))) {}

HttpChatClient::~HttpChatClient() {
  core_->Locked([&] { core_->Shutdown(); });
}

std::shared_ptr<CallHandle> HttpChatClient::Complete(ChatRequest request, CallOptions options, ChatCallback done) {
  auto s = std::make_shared<CallState>();
  {
    std::lock_guard<std::recursive_mutex> lock(core_->mu);
    s->id = core_->next_id++;
  }
  s->started = core_->clock.Now();
  s->deadline_at = s->started + options.deadline;
  // Encoded once now to refuse a bad request early; endpoints with their own
  // profile re-encode at dispatch.
  const auto& endpoints = core_->options.endpoints;
  WireOptions wire = !endpoints.empty() && endpoints.front().wire ? *endpoints.front().wire : core_->options.wire;
  wire.stream = options.stream;
  auto body = EncodeChatRequest(request, wire);
  s->request = std::move(request);
  s->options = std::move(options);
  s->done = std::move(done);
  auto handle = std::make_shared<HttpCallHandle>(core_, s->id);
  Status encode_error = body.ok() ? Status() : body.status();
  if (body.ok()) s->body = std::move(*body);
  {
    // Registered now, so a client destroyed before the posted start still
    // completes this call (kCancelled).
    std::lock_guard<std::recursive_mutex> lock(core_->mu);
    core_->active[s->id] = s;
  }
  std::weak_ptr<Core> weak = core_;
  core_->executor.Post([weak, s, encode_error] {
    auto core = weak.lock();
    if (!core) return;
    core->Locked([&] {
      if (core->shut_down || s->phase != CallState::Phase::kQueued) return;
      if (core->config_stop) {
        core->Finish(s,
                     MakeFailure(FailureClass::kConfig, "not sent, the run is stopping: " + core->run_stop->message()));
        return;
      }
      if (core->options.endpoints.empty()) {
        core->Finish(s, MakeFailure(FailureClass::kConfig, "no endpoint configured"));
        return;
      }
      if (!encode_error.ok()) {
        core->Finish(s, MakeFailure(FailureClass::kBadRequest, "cannot encode request: " + encode_error.message()));
        return;
      }
      core->queue.push_back(s);
      core->Pump();
    });
  });
  return handle;
}

std::optional<Status> HttpChatClient::RunStopStatus() const {
  std::lock_guard<std::recursive_mutex> lock(core_->mu);
  return core_->run_stop;
}

std::vector<EndpointState> HttpChatClient::EndpointSnapshot() const { return core_->pool.Snapshot(); }

CallHolds HttpChatClient::Holds() const {
  std::lock_guard<std::recursive_mutex> lock(core_->mu);
  return core_->HoldsNow();
}

}  // namespace seragen::llm
