#include "seragen/base/executor.h"

namespace seragen {

void QueueExecutor::Post(std::function<void()> work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(work));
  }
  cv_.notify_one();
}

bool QueueExecutor::RunOne() {
  std::function<void()> work;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.empty()) return false;
    work = std::move(queue_.front());
    queue_.pop_front();
  }
  work();
  return true;
}

std::size_t QueueExecutor::RunUntilIdle() {
  std::size_t n = 0;
  while (RunOne()) ++n;
  return n;
}

bool QueueExecutor::WaitAndRunOne() {
  std::function<void()> work;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return stopped_ || !queue_.empty(); });
    if (queue_.empty()) return false;
    work = std::move(queue_.front());
    queue_.pop_front();
  }
  work();
  return true;
}

void QueueExecutor::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
  }
  cv_.notify_all();
}

std::size_t QueueExecutor::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

}  // namespace seragen
