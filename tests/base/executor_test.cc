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
