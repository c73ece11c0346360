// Executor: where a piece of work runs. The pipeline has two: the event loop
// (owns state, never blocks) and a worker pool (blocking work). Code that
// hops between them takes Executor& so tests can run everything inline.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>

namespace seragen {

class Executor {
 public:
  virtual ~Executor() = default;
  // Schedules `work`; never runs it inside Post(). Thread-safe.
  virtual void Post(std::function<void()> work) = 0;
};

// A FIFO run by whoever calls RunUntilIdle()/RunOne(); for tests and for
// single-threaded drivers (benchmarks). Post() is thread-safe.
class QueueExecutor final : public Executor {
 public:
  void Post(std::function<void()> work) override;
  // Runs queued work (including work posted meanwhile) until the queue is
  // empty; returns how many items ran.
  std::size_t RunUntilIdle();
  // Runs one item if any; returns false when the queue was empty.
  bool RunOne();
  // Blocks until an item is queued or `Stop()` was called; returns false on stop.
  bool WaitAndRunOne();
  void Stop();
  std::size_t pending() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopped_ = false;
};

}  // namespace seragen
