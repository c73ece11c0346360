#include "seragen/llm/concurrency_tuner.h"

#include <catch2/catch.hpp>

namespace seragen::llm {

namespace {
int Window(ConcurrencyTuner& t, double running, double waiting, double cpu = 0, int endpoints = 2) {
  for (int i = 0; i < 5; ++i) t.Sample(std::vector<EndpointLoad>(endpoints, EndpointLoad{running, waiting}), cpu);
  return t.Decide(t.limit());
}
}  // namespace

TEST_CASE("auto concurrency rises while an endpoint's queue runs empty", "[llm][tuner]") {
  ConcurrencyTunerOptions o;
  o.max_limit = 40;
  ConcurrencyTuner t(o, 16);
  CHECK(t.limit() == 16);
  CHECK(Window(t, 12, 0) == 18);
  CHECK(Window(t, 16, 0.2) == 20);
  for (int i = 0; i < 20; ++i) Window(t, 16, 0);
  CHECK(t.limit() == 40);  // never past what the node holds
  CHECK(t.capped());       // and it says so while the queues run empty
  Window(t, 16, 3);
  CHECK(!t.capped());
  // One endpoint idle while the other queues: still raised.
  t = ConcurrencyTuner(o, 16);
  t.Sample({{16, 3}, {10, 0}}, 0);
  CHECK(t.Decide(16) == 18);
  // Not raised while the limit does not bind (too few tasks to reach it).
  t.Sample({{10, 0}, {10, 0}}, 0);
  CHECK(t.Decide(12) == 18);
}

TEST_CASE("auto concurrency waits for a lowered limit to take effect", "[llm][tuner]") {
  ConcurrencyTuner t({}, 32);
  CHECK(Window(t, 16, 12) == 28);
  t.Sample({{16, 12}, {16, 12}}, 0);
  CHECK(t.Decide(32) == 28);  // 32 tasks still run: the cut has not acted yet
  t.Sample({{16, 12}, {16, 12}}, 0);
  CHECK(t.Decide(28) == 25);
}

TEST_CASE("auto concurrency holds with a short queue and backs off when it grows", "[llm][tuner]") {
  ConcurrencyTunerOptions o;
  ConcurrencyTuner t(o, 32);
  CHECK(Window(t, 16, 3) == 32);   // just non-empty (2 to 2 + 16 / 2 waiting): hold
  CHECK(Window(t, 16, 12) == 28);  // 12 > 2 + 16 / 2: back off
  CHECK(Window(t, 16, 12) == 25);
  o.min_limit = 25;
  ConcurrencyTuner floor(o, 25);
  CHECK(Window(floor, 16, 30) == 25);
}

TEST_CASE("auto concurrency does not outgrow the node's CPUs", "[llm][tuner]") {
  ConcurrencyTuner t({}, 16);
  CHECK(Window(t, 10, 0, 0.3) == 16);  // queues empty, but commands wait for a CPU
  CHECK(Window(t, 10, 0, 0.5) == 14);  // far beyond: back off
}

TEST_CASE("auto concurrency does not fill a KV cache the server says is nearly full", "[llm][tuner]") {
  ConcurrencyTuner t({}, 16);
  t.Sample({{16, 0, 0.95}, {10, 0, 0.5}}, 0);
  CHECK(t.Decide(16) == 16);  // queues empty, but one server's cache is 95% full
  t.Sample({{16, 0, 0.6}, {10, 0, -1}}, 0);
  CHECK(t.Decide(16) == 18);
}

}  // namespace seragen::llm
