// ConcurrencyTuner: how many tasks to keep in flight so that every endpoint's
// queue stays just non-empty (`run.concurrency: auto`). Each task holds a
// request only part of the time (the rest it runs commands or moves between
// stages), so the right number depends on the repository and cannot be
// guessed. Fed with samples of the servers' own load (vLLM/SGLang /metrics:
// requests running and waiting) and of the node's CPU pressure, it raises
// the limit while some endpoint's queue runs empty and lowers it when the
// queues grow past a bound or the node cannot run the commands. Bounded by
// [min_limit, max_limit] (max_limit: what the node can hold). Pure; no
// clock: the caller samples at a steady interval and calls Decide once per
// window.
#pragma once

#include <cstddef>
#include <vector>

namespace seragen::llm {

struct ConcurrencyTunerOptions {
  int min_limit = 1;
  int max_limit = 256;
  int initial_limit = 0;  // 0: the endpoints' slots (or min_limit when unknown)
  // A window in which the least loaded endpoint had on average fewer than
  // max(low_waiting, low_waiting_share x its running requests) waiting
  // requests let that endpoint's slots idle at times: raise. Above
  // high_waiting (per endpoint, plus high_waiting_share of its running
  // requests) the queues only add latency and memory: lower.
  double low_waiting = 1.0;
  double low_waiting_share = 0.125;
  double high_waiting = 2.0;
  double high_waiting_share = 0.5;
  // Share of the commands' time spent waiting for a CPU (runnable commands
  // beyond the node's cores over all runnable commands); above it more tasks
  // only slow every command down, so the limit is not raised and, far above
  // it (twice), lowered.
  double max_cpu_pressure = 0.2;
  // A window in which some endpoint's KV cache was on average fuller than
  // this (as the server publishes it) does not raise the limit: more
  // sequences would only be preempted.
  double max_kv_cache_usage = 0.9;
};

// One sample of one endpoint.
struct EndpointLoad {
  double running = 0;          // requests the server runs now
  double waiting = 0;          // requests the server has queued (or the client holds for it)
  double kv_cache_usage = -1;  // 0..1 as published; -1 unknown
};

class ConcurrencyTuner {
 public:
  explicit ConcurrencyTuner(ConcurrencyTunerOptions options, int endpoint_slots = 0);

  // One sample: every endpoint's load and the node's CPU pressure (0..1, see
  // max_cpu_pressure).
  void Sample(const std::vector<EndpointLoad>& endpoints, double cpu_pressure);
  // Ends the window, given the tasks in flight now: the new limit (also
  // limit()). A task ends only after minutes, so a lowered limit takes
  // effect slowly: while more tasks than the limit are still in flight the
  // limit is not lowered again, and it is raised only when it binds (as
  // many tasks in flight as it allows).
  int Decide(int in_flight);
  int limit() const { return limit_; }
  // The last window asked for more tasks than max_limit allows (the queues
  // ran empty at the node's bound): a cap that holds the endpoints back.
  bool capped() const { return capped_; }

 private:
  ConcurrencyTunerOptions options_;
  int limit_;
  bool capped_ = false;
  std::size_t samples_ = 0;
  double min_waiting_sum_ = 0;   // per sample: the least waiting endpoint
  double min_running_sum_ = 0;   // per sample: that endpoint's running requests
  double mean_waiting_sum_ = 0;  // per sample: mean waiting per endpoint
  double running_sum_ = 0;       // per sample: mean running per endpoint
  double cpu_sum_ = 0;
  double kv_sum_ = 0;  // per sample: the fullest endpoint's KV cache (0 when unknown)
};

}  // namespace seragen::llm
