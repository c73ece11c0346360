#include "cli/auto_concurrency_setup.h"

#include <catch2/catch.hpp>

namespace seragen::cli {

TEST_CASE("auto concurrency: published loads win, observed ones fill in, and the source says which",
          "[cli][auto_concurrency]") {
  std::vector<std::optional<llm::ServerLoad>> published(3);
  published[1] = llm::ServerLoad{"vllm", 12, 3, 0.5};
  const std::vector<llm::EndpointLoad> observed{{4, 1, -1}, {9, 0, -1}, {2, 0, -1}};
  std::string source;
  auto merged = MergeLoads(published, observed, &source);
  REQUIRE(merged.size() == 3);
  CHECK(merged[0].running == 4);
  CHECK(merged[1].running == 12);
  CHECK(merged[1].waiting == 3);
  CHECK(merged[1].kv_cache_usage == 0.5);
  CHECK(source == "server metrics and observed latency");
  MergeLoads({}, observed, &source);
  CHECK(source == "observed latency");
  MergeLoads({published[1]}, {observed[0]}, &source);
  CHECK(source == "server metrics");
}

TEST_CASE("auto concurrency starts at 8 per endpoint, below the caps and the node's bound", "[cli][auto_concurrency]") {
  pipeline::NodeBound bound{48, "memory", "60.0 GiB available, 1.0 GiB per task"};
  auto o = AutoConcurrencyOptionsFor(bound, 64, 2);
  CHECK(o.endpoint_slots == 16);
  CHECK(o.tuner.max_limit == 48);
  CHECK(o.bound_by == "memory");
  CHECK(AutoConcurrencyOptionsFor(bound, 10, 2).endpoint_slots == 10);
  CHECK(AutoConcurrencyOptionsFor({6, "cpu", ""}, 64, 4).endpoint_slots == 6);
  CHECK(AutoConcurrencyOptionsFor(bound, 0, 0).endpoint_slots == 1);
  journal::ConcurrencyRecord fixed = FixedConcurrencyRecord(4);
  CHECK(fixed.mode == "fixed");
  CHECK(fixed.limit == 4);
}

}  // namespace seragen::cli
