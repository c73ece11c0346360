#include "seragen/llm/endpoint_pool.h"

#include <algorithm>
#include <array>

namespace seragen::llm {

EndpointPool::EndpointPool(std::vector<EndpointOptions> endpoints, EndpointPoolOptions options, const Clock& clock)
    : endpoints_(std::move(endpoints)), options_(options), clock_(clock), integrated_at_(clock.Now()) {
  for (const auto& e : endpoints_) {
    EndpointState s;
    s.base_url = e.base_url;
    s.max_concurrency = e.max_concurrency;
    state_.push_back(std::move(s));
  }
}

bool EndpointPool::Usable(const EndpointState& e, Clock::SteadyTime now) const {
  if (e.ejected) return false;
  if (now < e.slow_until) return false;
  if (e.max_concurrency > 0 && e.outstanding >= e.max_concurrency) return false;
  return true;
}

std::string_view AcquireHoldName(AcquireHold hold) {
  // In the enum's order: what logs and `status` call each hold (the key that holds calls back, where there is one).
  constexpr std::array<std::string_view, 4> kNames = {"none", "llm.max_concurrency", "llm.max_concurrency_per_endpoint",
                                                      "no endpoint available"};
  const auto i = static_cast<std::size_t>(hold);
  return i < kNames.size() ? kNames[i] : "unknown";
}

std::optional<std::size_t> EndpointPool::LeastLoaded(Clock::SteadyTime now) const {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < state_.size(); ++i) {
    if (!Usable(state_[i], now)) continue;
    if (!best || state_[i].outstanding < state_[*best].outstanding) best = i;
  }
  return best;
}

AcquireHold EndpointPool::WhyHeld(Clock::SteadyTime now) const {
  for (const auto& e : state_) {
    if (!e.ejected && now >= e.slow_until) return AcquireHold::kEndpointCaps;
  }
  return AcquireHold::kNoneAvailable;
}

// The key's previous endpoint while usable and within the overload bound,
// else `least`; records the key's endpoint and the routing counters.
std::size_t EndpointPool::Route(std::string_view key, std::size_t least) {
  auto it = affinity_.find(std::string(key));
  if (it == affinity_.end()) {
    if (affinity_order_.size() >= options_.affinity_keys && !affinity_order_.empty()) {
      affinity_.erase(affinity_order_.front());
      affinity_order_.pop_front();
    }
    affinity_.emplace(std::string(key), least);
    affinity_order_.emplace_back(key);
    ++state_[least].affinity_started;
    return least;
  }
  std::size_t previous = it->second;
  const EndpointState& p = state_[previous];
  int bound = state_[least].outstanding + std::max(options_.affinity_slack, state_[least].outstanding);
  bool half_full = p.max_concurrency == 0 || 2 * p.outstanding >= p.max_concurrency;
  if (Usable(p, clock_.Now()) && (p.outstanding <= bound || !half_full)) {
    ++state_[previous].affinity_kept;
    return previous;
  }
  it->second = least;
  ++state_[least].affinity_moved_in;
  return least;
}

void EndpointPool::Integrate(std::vector<EndpointState>& state, Clock::SteadyTime now) const {
  const double dt = std::chrono::duration<double>(now - integrated_at_).count();
  if (dt <= 0) return;
  for (EndpointState& e : state) {
    EndpointOccupancy& o = e.occupancy;
    o.tracked_s += dt;
    o.in_flight_s += e.outstanding * dt;
    if (e.outstanding > 0) continue;
    // A slowdown may end inside the interval: only its part is unavailable.
    double slowed =
        e.ejected ? dt : std::clamp(std::chrono::duration<double>(e.slow_until - integrated_at_).count(), 0.0, dt);
    o.idle_unavailable_s += slowed;
    if (slowed >= dt) continue;
    const double rest = dt - slowed;
    if (hold_ == AcquireHold::kGlobalCap) {
      o.idle_cap_s += rest;
    } else if (e.successes + e.failures == 0) {
      o.idle_startup_s += rest;
    } else {
      o.idle_no_request_s += rest;
    }
  }
}

void EndpointPool::Advance() {
  auto now = clock_.Now();
  Integrate(state_, now);
  integrated_at_ = now;
}

void EndpointPool::RecordUsage(std::size_t index, std::int64_t prompt_tokens, std::int64_t cached_tokens) {
  std::lock_guard<std::mutex> lock(mu_);
  EndpointOccupancy& o = state_.at(index).occupancy;
  o.prompt_tokens += std::max<std::int64_t>(prompt_tokens, 0);
  o.cached_tokens += std::max<std::int64_t>(cached_tokens, 0);
}

void EndpointPool::RecordAnswer(std::size_t index, std::int64_t completion_tokens, std::chrono::microseconds took) {
  std::lock_guard<std::mutex> lock(mu_);
  EndpointOccupancy& o = state_.at(index).occupancy;
  o.answers++;
  o.completion_tokens += std::max<std::int64_t>(completion_tokens, 0);
  o.answer_s += std::max(0.0, std::chrono::duration<double>(took).count());
}

void EndpointPool::SetHold(AcquireHold hold) {
  std::lock_guard<std::mutex> lock(mu_);
  Advance();
  hold_ = hold;
}

std::optional<std::size_t> EndpointPool::Acquire(std::string_view affinity_key, AcquireHold* hold) {
  std::lock_guard<std::mutex> lock(mu_);
  Advance();
  if (hold) *hold = AcquireHold::kNone;
  if (options_.max_concurrency > 0 && outstanding_total_ >= options_.max_concurrency) {
    if (hold) *hold = AcquireHold::kGlobalCap;
    return std::nullopt;
  }
  auto now = clock_.Now();
  std::optional<std::size_t> best = LeastLoaded(now);
  if (!best) {
    if (hold) *hold = WhyHeld(now);
    return std::nullopt;
  }
  if (!affinity_key.empty() && options_.affinity_slack > 0) best = Route(affinity_key, *best);
  EndpointState& chosen = state_[*best];
  ++chosen.outstanding;
  chosen.occupancy.peak_in_flight = std::max(chosen.occupancy.peak_in_flight, chosen.outstanding);
  ++outstanding_total_;
  return best;
}

void EndpointPool::Release(std::size_t index, FailureClass failure) {
  std::lock_guard<std::mutex> lock(mu_);
  Advance();
  EndpointState& e = state_.at(index);
  if (e.outstanding > 0) --e.outstanding;
  if (outstanding_total_ > 0) --outstanding_total_;
  bool health_failure = failure == FailureClass::kTransientNetwork || failure == FailureClass::kTransientServer ||
                        failure == FailureClass::kServerNotReady;
  if (failure == FailureClass::kNone) {
    ++e.successes;
    e.consecutive_failures = 0;
  } else if (health_failure) {
    ++e.failures;
    if (++e.consecutive_failures >= options_.eject_after_failures && !e.ejected) {
      e.ejected = true;
      e.probe_interval = options_.probe_interval;
      e.next_probe = clock_.Now() + e.probe_interval;
    }
  }
}

void EndpointPool::SlowDown(std::size_t index, std::chrono::milliseconds delay) {
  std::lock_guard<std::mutex> lock(mu_);
  Advance();
  EndpointState& e = state_.at(index);
  e.slow_until = std::max(e.slow_until, clock_.Now() + delay);
}

std::vector<std::size_t> EndpointPool::DueProbes() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::size_t> due;
  auto now = clock_.Now();
  for (std::size_t i = 0; i < state_.size(); ++i) {
    EndpointState& e = state_[i];
    if (!e.ejected || now < e.next_probe) continue;
    due.push_back(i);
    // Not due again until this probe fails (ProbeFailed re-arms it); a
    // probe that never answers is re-tried after the longest interval.
    e.next_probe = now + options_.max_probe_interval;
  }
  return due;
}

void EndpointPool::ProbeSucceeded(std::size_t index, std::optional<std::int64_t> context_window, std::string model_id) {
  std::lock_guard<std::mutex> lock(mu_);
  Advance();
  EndpointState& e = state_.at(index);
  e.ejected = false;
  e.consecutive_failures = 0;
  if (context_window) e.context_window = context_window;
  if (!model_id.empty()) e.model_id = std::move(model_id);
}

void EndpointPool::ProbeFailed(std::size_t index) {
  std::lock_guard<std::mutex> lock(mu_);
  Advance();
  EndpointState& e = state_.at(index);
  e.ejected = true;
  e.probe_interval = std::min(std::max(e.probe_interval * 2, options_.probe_interval), options_.max_probe_interval);
  e.next_probe = clock_.Now() + e.probe_interval;
}

std::optional<Clock::SteadyTime> EndpointPool::NextChange() const {
  std::lock_guard<std::mutex> lock(mu_);
  auto now = clock_.Now();
  std::optional<Clock::SteadyTime> next;
  auto consider = [&](Clock::SteadyTime t) {
    if (t > now && (!next || t < *next)) next = t;
  };
  for (const auto& e : state_) {
    if (e.ejected) consider(e.next_probe);
    else consider(e.slow_until);
  }
  return next;
}

std::vector<EndpointState> EndpointPool::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<EndpointState> copy = state_;
  Integrate(copy, clock_.Now());
  return copy;
}

}  // namespace seragen::llm
