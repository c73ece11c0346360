// Scheduler: where deferred work runs. The LLM client uses it for retry
// back-off so tests can record the delays instead of sleeping.
#pragma once

#include <chrono>
#include <functional>

namespace seragen::http {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Runs `fn` soon, on the scheduler's thread. Thread-safe.
  virtual void Post(std::function<void()> fn) = 0;
  // Runs `fn` on the scheduler's thread after `delay` (<= 0 means "soon").
  // Thread-safe. Pending functions are dropped (not run) at shutdown.
  virtual void RunAfter(std::chrono::nanoseconds delay, std::function<void()> fn) = 0;
};

}  // namespace seragen::http
