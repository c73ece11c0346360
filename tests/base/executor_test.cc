#include "seragen/base/executor.h"

#include <catch2/catch.hpp>

#include <thread>
#include <vector>

namespace seragen {

TEST_CASE("QueueExecutor runs work in order, never inside Post", "[executor]") {
  QueueExecutor ex;
  std::vector<int> order;
  ex.Post([&] {
    order.push_back(1);
    ex.Post([&] { order.push_back(3); });
  });
  ex.Post([&] { order.push_back(2); });
  CHECK(order.empty());
  CHECK(ex.RunUntilIdle() == 3);
  CHECK(order == std::vector<int>{1, 2, 3});
  CHECK_FALSE(ex.RunOne());
}

TEST_CASE("QueueExecutor accepts work from other threads and stops", "[executor]") {
  QueueExecutor ex;
  int ran = 0;
  std::thread t([&] {
    for (int i = 0; i < 100; ++i) ex.Post([&] { ++ran; });
    ex.Post([&] { ex.Stop(); });
  });
  while (ex.WaitAndRunOne()) {
  }
  t.join();
  CHECK(ran == 100);
}

}  // namespace seragen

#include <atomic>

#include "seragen/base/thread_pool.h"

namespace seragen {

TEST_CASE("ThreadPool runs all posted work, in parallel, and drains on destruction", "[executor]") {
  std::atomic<int> ran{0};
  {
    ThreadPool pool(4);
    CHECK(pool.size() == 4);
    for (int i = 0; i < 1000; ++i) pool.Post([&] { ++ran; });
  }
  CHECK(ran == 1000);
  // Two blocking items finish together on two threads (they wait for each other).
  std::atomic<int> arrived{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 2; ++i) {
      pool.Post([&] {
        ++arrived;
        while (arrived < 2) std::this_thread::yield();
      });
    }
  }
  CHECK(arrived == 2);
}

}  // namespace seragen
