// EndpointPool: several base URLs serving one model. Cache-affine routing (a
// call with an affinity key goes back to the endpoint that served the key's
// previous call, which holds its prompt prefix in cache, unless that endpoint
// is unusable or overloaded beyond a bound; a new key goes to the endpoint
// with the fewest outstanding requests), global and per-endpoint concurrency
// limits (a call they hold back says so: AcquireHold), a shared
// slowdown after rate limiting, ejection after repeated failures and
// reinstatement after a successful probe. Pure bookkeeping (no I/O); time
// comes from the injected Clock. Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "seragen/base/clock.h"
#include "seragen/llm/endpoint_options.h"
#include "seragen/llm/failure.h"

namespace seragen::llm {

struct EndpointPoolOptions {
  int max_concurrency = 0;                              // all endpoints together; 0 = unlimited
  int eject_after_failures = 3;                         // consecutive transient/not-ready failures
  std::chrono::milliseconds probe_interval{5000};       // first probe after ejection
  std::chrono::milliseconds max_probe_interval{60000};  // probes back off up to this
  // A key's endpoint counts as overloaded, and the call moves to the least
  // loaded usable endpoint, when it holds more than max(affinity_slack,
  // least) outstanding requests beyond that endpoint's `least` (more than
  // twice as many, and at least affinity_slack more) and at least half its
  // own max_concurrency: an endpoint below that batches the call anyway,
  // while moving recomputes the whole prefix. 0 = no affinity (every call
  // goes to the least loaded).
  int affinity_slack = 4;
  std::size_t affinity_keys = 1 << 16;  // keys remembered; the oldest is forgotten first
};

// Why Acquire found no endpoint.
enum class AcquireHold {
  kNone,           // an endpoint was acquired
  kGlobalCap,      // max_concurrency requests are in flight over all endpoints
  kEndpointCaps,   // every endpoint that could take it is at its own max_concurrency
  kNoneAvailable,  // every endpoint is ejected or slowed down after rate limiting
};
std::string_view AcquireHoldName(AcquireHold hold);

// How busy an endpoint was kept since the pool was made: requests in flight
// over time against its capacity, and why it idled (no request in flight).
struct EndpointOccupancy {
  double tracked_s = 0;    // time observed
  double in_flight_s = 0;  // integral of requests in flight over time
  int peak_in_flight = 0;
  double idle_startup_s = 0;  // idle before its first request (run start-up)
  // Idle with no request ready to send: the agents run commands or move
  // between stages.
  double idle_no_request_s = 0;
  double idle_cap_s = 0;           // idle while llm.max_concurrency held calls back
  double idle_unavailable_s = 0;   // idle while ejected or slowed after rate limiting (retries)
  std::int64_t prompt_tokens = 0;  // of the answers it gave
  std::int64_t cached_tokens = 0;  // of those, served from its prefix cache (as reported)
  // Answers it gave: how many, their output tokens and the seconds from
  // request to answer (queueing on the server included): the latency the
  // auto concurrency watches when the server publishes no load.
  std::uint64_t answers = 0;
  std::int64_t completion_tokens = 0;
  double answer_s = 0;
};

struct EndpointState {
  std::string base_url;
  int max_concurrency = 0;
  int outstanding = 0;
  int consecutive_failures = 0;
  bool ejected = false;
  Clock::SteadyTime slow_until{};  // not picked before this (rate limiting)
  Clock::SteadyTime next_probe{};  // when ejected
  std::chrono::milliseconds probe_interval{0};
  std::optional<std::int64_t> context_window;
  std::string model_id;
  std::uint64_t successes = 0;
  std::uint64_t failures = 0;
  // Routing of keyed calls: sent to the key's previous endpoint (kept), moved
  // here from another one (moved_in: its prefix is recomputed), or the key's
  // first call (started).
  std::uint64_t affinity_kept = 0;
  std::uint64_t affinity_moved_in = 0;
  std::uint64_t affinity_started = 0;
  EndpointOccupancy occupancy;
};

class EndpointPool {
 public:
  EndpointPool(std::vector<EndpointOptions> endpoints, EndpointPoolOptions options, const Clock& clock);

  std::size_t size() const { return endpoints_.size(); }
  const EndpointOptions& options(std::size_t index) const { return endpoints_[index]; }

  // Reserves a slot: on `affinity_key`'s previous endpoint when it is usable
  // and not overloaded, else on the usable endpoint with the fewest
  // outstanding requests (ties: lowest index), which becomes the key's. An
  // empty key has no affinity. nullopt when none is usable now; `hold` (if
  // given) then says why.
  std::optional<std::size_t> Acquire(std::string_view affinity_key = {}, AcquireHold* hold = nullptr);
  // Returns the slot; `failure` is kNone on success. Transient, network and
  // not-ready failures count toward ejection; success resets the count.
  void Release(std::size_t index, FailureClass failure);
  // An answer's usage, for the endpoint's prefix-cache hit rate.
  void RecordUsage(std::size_t index, std::int64_t prompt_tokens, std::int64_t cached_tokens);
  // An answer's output tokens and its time from request to answer.
  void RecordAnswer(std::size_t index, std::int64_t completion_tokens, std::chrono::microseconds took);
  // What holds the client's queue back now (kNone: nothing): an endpoint that
  // idles meanwhile idles because of it.
  void SetHold(AcquireHold hold);
  // Rate limited: nobody uses this endpoint until now + delay.
  void SlowDown(std::size_t index, std::chrono::milliseconds delay);

  // Ejected endpoints whose probe time has come (each is returned once per
  // probe period).
  std::vector<std::size_t> DueProbes();
  void ProbeSucceeded(std::size_t index, std::optional<std::int64_t> context_window, std::string model_id);
  void ProbeFailed(std::size_t index);

  // The earliest time something may become usable (slowdown end or probe),
  // for waking queued calls; nullopt when nothing is pending.
  std::optional<Clock::SteadyTime> NextChange() const;

  // The endpoints' state, occupancy counted up to now.
  std::vector<EndpointState> Snapshot() const;

 private:
  bool Usable(const EndpointState& e, Clock::SteadyTime now) const;
  std::optional<std::size_t> LeastLoaded(Clock::SteadyTime now) const;
  AcquireHold WhyHeld(Clock::SteadyTime now) const;
  std::size_t Route(std::string_view key, std::size_t least);
  // Adds the time since the last call to every endpoint's occupancy.
  void Integrate(std::vector<EndpointState>& state, Clock::SteadyTime now) const;
  void Advance();  // Integrate(state_, now), under the lock

  std::vector<EndpointOptions> endpoints_;
  EndpointPoolOptions options_;
  const Clock& clock_;
  mutable std::mutex mu_;
  std::vector<EndpointState> state_;
  int outstanding_total_ = 0;
  AcquireHold hold_ = AcquireHold::kNone;
  Clock::SteadyTime integrated_at_;
  std::unordered_map<std::string, std::size_t> affinity_;  // key -> endpoint of its last call
  std::deque<std::string> affinity_order_;                 // keys, oldest first
};

}  // namespace seragen::llm
