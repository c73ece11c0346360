// EventLoop: one thread running a Boost.Asio io_context. The curl client and
// everything driven by it (LLM retries, endpoint probes) run on this thread.
//
// Thread-safety: Post/RunAfter/RunSync may be called from any thread.
// Destruction stops the thread; functions still pending are destroyed
// without running. Destroy every client bound to the loop first.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "seragen/http/scheduler.h"

namespace seragen::http {

class EventLoop final : public Scheduler {
 public:
  EventLoop();  // starts the thread
  ~EventLoop() override;
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  void Post(std::function<void()> fn) override;
  void RunAfter(std::chrono::nanoseconds delay, std::function<void()> fn) override;

  // Runs `fn` on the loop thread and waits for it (runs inline when already
  // on the loop thread).
  void RunSync(const std::function<void()>& fn);

  bool InLoopThread() const;

  // Adapter-internal access (src/http only): the io_context, as void*.
  void* native_handle();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace seragen::http
