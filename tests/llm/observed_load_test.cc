#include "seragen/llm/observed_load.h"

#include <catch2/catch.hpp>

namespace seragen::llm {

namespace {
// An endpoint with `outstanding` requests that answered `tokens` more output
// tokens in `seconds` more request time since the last sample.
struct FakeEndpoint {
  EndpointState state;
  void Step(int outstanding, std::int64_t tokens, double seconds) {
    state.outstanding = outstanding;
    state.occupancy.completion_tokens += tokens;
    state.occupancy.answer_s += seconds;
  }
};
}  // namespace

TEST_CASE("observed load: nothing waits while the time per token holds", "[llm][tuner]") {
  ObservedLoad load;
  FakeEndpoint e;
  for (int i = 0; i < 30; ++i) {
    e.Step(8 + i % 3, 400, 10.0);  // 25 ms per token
    auto out = load.Update({e.state});
    REQUIRE(out.size() == 1);
    CHECK(out[0].waiting == 0);
    CHECK(out[0].running == e.state.outstanding);
  }
}

TEST_CASE("observed load: a server that slows down reads as queueing, then as its new speed", "[llm][tuner]") {
  ObservedLoad load;
  FakeEndpoint e;
  for (int i = 0; i < 20; ++i) {
    e.Step(16, 400, 10.0);
    load.Update({e.state});
  }
  double waiting = 0;
  for (int i = 0; i < 20; ++i) {
    e.Step(20, 400, 20.0);  // twice the time per token
    waiting = load.Update({e.state})[0].waiting;
  }
  CHECK(waiting > 20 * 0.35);  // 1 - 1.15 / 2 of the outstanding requests wait
  CHECK(waiting < 20 * 0.5);
  // After the baseline span a server that stays slower is read at its new speed.
  for (int i = 0; i < 900; ++i) {
    e.Step(20, 400, 20.0);
    waiting = load.Update({e.state})[0].waiting;
  }
  CHECK(waiting == 0);
}

TEST_CASE("observed load: too few tokens keep the previous estimate, and endpoints are separate", "[llm][tuner]") {
  ObservedLoad load;
  FakeEndpoint a, b;
  for (int i = 0; i < 20; ++i) {
    a.Step(4, 400, 10.0);
    b.Step(4, 400, 10.0);
    load.Update({a.state, b.state});
  }
  for (int i = 0; i < 20; ++i) {
    a.Step(4, 400, 30.0);
    b.Step(4, 400, 10.0);
    load.Update({a.state, b.state});
  }
  a.Step(6, 0, 0);
  b.Step(6, 0, 0);
  auto out = load.Update({a.state, b.state});
  CHECK(out[0].waiting > 6 * 0.5);
  CHECK(out[1].waiting == 0);
  CHECK(out[0].running + out[0].waiting == Approx(6));
}

}  // namespace seragen::llm
