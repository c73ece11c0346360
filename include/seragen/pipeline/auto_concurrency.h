// AutoConcurrency: `run.concurrency: auto`. Every sample_interval it samples
// the endpoints' load (the servers' own figures where they publish them,
// else the client's observation: llm/observed_load.h) and the node's CPU
// pressure, and every samples_per_window samples lets the ConcurrencyTuner
// decide how many tasks the scheduler keeps in flight, within [min_limit,
// the node's bound] (node_capacity.h). When the queues still run empty at
// the node's bound, that cap is logged (a warning when it starts, then at
// most every 5 minutes) and its time counted in status().
//
// Runs on the scheduler's loop (`loop`): Start, Stop, and the callbacks run
// there; status() may be read from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "seragen/base/clock.h"
#include "seragen/base/executor.h"
#include "seragen/llm/concurrency_tuner.h"

namespace seragen::pipeline {

struct LoadSample {
  std::vector<llm::EndpointLoad> endpoints;
  double cpu_pressure = 0;  // 0..1: share of time runnable commands waited for a CPU
  std::string source;       // where the endpoints' load came from ("server metrics", "observed latency")
};

struct AutoConcurrencyOptions {
  llm::ConcurrencyTunerOptions tuner;  // max_limit: the node's bound
  int endpoint_slots = 0;              // the servers' slots when known (the starting limit), else 0
  std::string bound_by;                // what sets max_limit ("memory", "disk", "cpu", "limit")
  std::string bound_detail;            // its figures
  std::chrono::milliseconds sample_interval{2000};
  int samples_per_window = 5;
};

// What `status` shows of the auto concurrency.
struct AutoConcurrencyStatus {
  int limit = 0;
  int max_limit = 0;  // the node's bound
  int lowest = 0;     // the limit's range so far
  int highest = 0;
  std::string bound_by;
  std::string bound_detail;
  std::string load_source;  // of the last sample
  double at_bound_s = 0;    // time the node's bound held tasks back while the endpoints' queues ran empty
  std::uint64_t raised = 0;
  std::uint64_t lowered = 0;
};

class AutoConcurrency {
 public:
  // `sample`: the load now. `in_flight`: the tasks running now. `apply`: sets
  // the scheduler's limit (TaskScheduler::SetLimit).
  AutoConcurrency(Executor& loop, const Clock& clock, AutoConcurrencyOptions options,
                  std::function<LoadSample()> sample, std::function<int()> in_flight, std::function<void(int)> apply);
  ~AutoConcurrency();

  void Start();  // applies the starting limit and schedules the first sample
  void Stop();   // no sample after this
  AutoConcurrencyStatus status() const;

 private:
  void Tick();
  void Decide();
  void NoteCap(bool capped, double window_s);

  Executor& loop_;
  const Clock& clock_;
  AutoConcurrencyOptions options_;
  std::function<LoadSample()> sample_;
  std::function<int()> in_flight_;
  std::function<void(int)> apply_;
  llm::ConcurrencyTuner tuner_;
  int samples_ = 0;
  Clock::SteadyTime window_start_{};
  Clock::SteadyTime last_cap_log_{};
  bool cap_logged_ = false;
  bool stopped_ = false;
  mutable std::mutex mu_;
  AutoConcurrencyStatus status_;
  std::shared_ptr<const bool> alive_ = std::make_shared<const bool>(true);
};

}  // namespace seragen::pipeline
