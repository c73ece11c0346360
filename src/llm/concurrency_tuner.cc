#include "seragen/llm/concurrency_tuner.h"

#include <algorithm>

namespace seragen::llm {

ConcurrencyTuner::ConcurrencyTuner(ConcurrencyTunerOptions options, int endpoint_slots)
    : options_(options),
      limit_(std::clamp(options.initial_limit > 0 ? options.initial_limit : std::max(endpoint_slots, 1),
                        options.min_limit, std::max(options.min_limit, options.max_limit))) {}

void ConcurrencyTuner::Sample(const std::vector<EndpointLoad>& endpoints, double cpu_pressure) {
  if (endpoints.empty()) return;
  const EndpointLoad* least = &endpoints.front();
  double waiting = 0;
  double running = 0;
  double kv = 0;
  for (const auto& e : endpoints) {
    if (e.waiting < least->waiting) least = &e;
    waiting += e.waiting;
    running += e.running;
    kv = std::max(kv, std::clamp(e.kv_cache_usage, 0.0, 1.0));
  }
  kv_sum_ += kv;
  const double n = static_cast<double>(endpoints.size());
  ++samples_;
  min_waiting_sum_ += least->waiting;
  min_running_sum_ += least->running;
  mean_waiting_sum_ += waiting / n;
  running_sum_ += running / n;
  cpu_sum_ += std::clamp(cpu_pressure, 0.0, 1.0);
}

int ConcurrencyTuner::Decide(int in_flight) {
  if (samples_ == 0) return limit_;
  const double n = static_cast<double>(samples_);
  const double least_waiting = min_waiting_sum_ / n;
  const double least_running = min_running_sum_ / n;
  const double waiting = mean_waiting_sum_ / n;
  const double running = running_sum_ / n;
  const double cpu = cpu_sum_ / n;
  const double kv = kv_sum_ / n;
  samples_ = 0;
  capped_ = false;
  min_waiting_sum_ = min_running_sum_ = mean_waiting_sum_ = running_sum_ = cpu_sum_ = kv_sum_ = 0;
  const int step = std::max(1, limit_ / 8);
  const bool queues_long = waiting > options_.high_waiting + options_.high_waiting_share * running;
  if (cpu > 2 * options_.max_cpu_pressure || queues_long) {
    if (in_flight <= limit_) limit_ -= step;
  } else if (in_flight >= limit_ &&
             least_waiting < std::max(options_.low_waiting, options_.low_waiting_share * least_running) &&
             cpu <= options_.max_cpu_pressure && kv <= options_.max_kv_cache_usage) {
    capped_ = limit_ >= options_.max_limit;
    limit_ += step;
  }
  limit_ = std::clamp(limit_, options_.min_limit, std::max(options_.min_limit, options_.max_limit));
  return limit_;
}

}  // namespace seragen::llm
