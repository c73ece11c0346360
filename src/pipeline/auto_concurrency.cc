#include "seragen/pipeline/auto_concurrency.h"

#include <algorithm>

#include "seragen/base/log.h"

namespace seragen::pipeline {
namespace {
constexpr std::chrono::minutes kCapLogInterval{5};
}  // namespace

AutoConcurrency::AutoConcurrency(Executor& loop, const Clock& clock, AutoConcurrencyOptions options,
                                 std::function<LoadSample()> sample, std::function<int()> in_flight,
                                 std::function<void(int)> apply)
    : loop_(loop),
      clock_(clock),
      options_(std::move(options)),
      sample_(std::move(sample)),
      in_flight_(std::move(in_flight)),
      apply_(std::move(apply)),
      tuner_(options_.tuner, options_.endpoint_slots) {
  status_.limit = status_.lowest = status_.highest = tuner_.limit();
  status_.max_limit = std::max(options_.tuner.min_limit, options_.tuner.max_limit);
  status_.bound_by = options_.bound_by;
  status_.bound_detail = options_.bound_detail;
}

AutoConcurrency::~AutoConcurrency() { alive_.reset(); }

void AutoConcurrency::Start() {
  log::Logger("run").Info("run.concurrency auto: starting at {} task(s), at most {} ({}: {})", tuner_.limit(),
                          status_.max_limit, options_.bound_by, options_.bound_detail);
  apply_(tuner_.limit());
  window_start_ = clock_.Now();
  loop_.RunAfter(options_.sample_interval, [this, alive = std::weak_ptr<const bool>(alive_)] {
    if (!alive.expired()) Tick();
  });
}

void AutoConcurrency::Stop() { stopped_ = true; }

AutoConcurrencyStatus AutoConcurrency::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void AutoConcurrency::Tick() {
  if (stopped_) return;
  LoadSample s = sample_();
  tuner_.Sample(s.endpoints, s.cpu_pressure);
  {
    std::lock_guard<std::mutex> lock(mu_);
    status_.load_source = s.source;
  }
  if (++samples_ >= std::max(1, options_.samples_per_window)) Decide();
  loop_.RunAfter(options_.sample_interval, [this, alive = std::weak_ptr<const bool>(alive_)] {
    if (!alive.expired()) Tick();
  });
}

void AutoConcurrency::Decide() {
  samples_ = 0;
  const auto now = clock_.Now();
  const double window_s = std::chrono::duration<double>(now - window_start_).count();
  window_start_ = now;
  const int before = tuner_.limit();
  const int after = tuner_.Decide(in_flight_());
  NoteCap(tuner_.capped(), window_s);
  if (after == before) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    status_.limit = after;
    status_.lowest = std::min(status_.lowest, after);
    status_.highest = std::max(status_.highest, after);
    (after > before ? status_.raised : status_.lowered)++;
  }
  log::Logger("run").Info("run.concurrency auto: {} -> {} task(s) ({})", before, after,
                          after > before ? "some endpoint's queue ran empty" : "the queues grew or the CPUs are busy");
  apply_(after);
}

void AutoConcurrency::NoteCap(bool capped, double window_s) {
  if (!capped) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    status_.at_bound_s += window_s;
  }
  const auto now = clock_.Now();
  if (cap_logged_ && now - last_cap_log_ < kCapLogInterval) return;
  cap_logged_ = true;
  last_cap_log_ = now;
  log::Logger("run").Warn(
      "run.concurrency auto: held at {} task(s), what this node can hold ({}: {}), while the endpoints' queues run "
      "empty: more nodes (shards) or a larger one would keep them busier",
      tuner_.limit(), options_.bound_by, options_.bound_detail);
}

}  // namespace seragen::pipeline
