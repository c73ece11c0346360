#include "seragen/base/thread_pool.h"

namespace seragen {

ThreadPool::ThreadPool(std::size_t threads) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::Post(std::function<void()> work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(work));
  }
  cv_.notify_one();
}

void ThreadPool::Loop() {
  while (true) {
    std::function<void()> work;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    work();
  }
}

}  // namespace seragen
