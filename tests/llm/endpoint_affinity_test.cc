// Cache-affine routing of the endpoint pool, driven by simulated agent
// conversations on a fake clock (a model call, then a command, repeated).
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "seragen/base/rng.h"
#include "seragen/llm/endpoint_pool.h"

namespace seragen::llm {

using std::chrono::milliseconds;

namespace {

std::vector<EndpointOptions> Endpoints(int n, int cap) {
  std::vector<EndpointOptions> v;
  for (int i = 0; i < n; ++i) {
    EndpointOptions e;
    e.base_url = "http://gpu" + std::to_string(i) + "/v1";
    e.max_concurrency = cap;
    v.push_back(e);
  }
  return v;
}

struct AffinityFigures {
  std::uint64_t turns = 0;  // calls after a conversation's first
  std::uint64_t same = 0;   // of those, sent where the previous call went
  std::uint64_t held = 0;   // Acquire refused
};

// `conversations` agents with `turns` model calls each (model 1-4 s, command
// 0.2-6 s between calls); a finished conversation is replaced by a new key.
AffinityFigures Simulate(EndpointPool& pool, FakeClock& clock, int conversations, int turns, int total) {
  Rng rng(42);
  struct Agent {
    std::string key;
    int turn = 0;
    std::optional<std::size_t> last;
    std::optional<std::size_t> in_flight;
  };
  std::vector<Agent> agents(static_cast<std::size_t>(conversations));
  std::multimap<Clock::SteadyTime, std::size_t> events;  // agent ready for its next step
  int started = 0;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    agents[i].key = "task-" + std::to_string(started++);
    events.emplace(clock.Now() + milliseconds(rng.UniformInt(0, 2000)), i);
  }
  AffinityFigures f;
  int finished = 0;
  while (finished < total && !events.empty()) {
    auto [at, i] = *events.begin();
    events.erase(events.begin());
    if (at > clock.Now()) clock.Advance(at - clock.Now());
    Agent& a = agents[i];
    if (a.in_flight) {  // the model answered: run a command
      pool.Release(*a.in_flight, FailureClass::kNone);
      a.last = a.in_flight;
      a.in_flight.reset();
      if (++a.turn == turns) {
        ++finished;
        a = Agent{"task-" + std::to_string(started++), 0, {}, {}};
      }
      events.emplace(clock.Now() + milliseconds(rng.UniformInt(200, 6000)), i);
      continue;
    }
    auto index = pool.Acquire(a.key);
    if (!index) {
      ++f.held;
      events.emplace(clock.Now() + milliseconds(100), i);
      continue;
    }
    if (a.last) {
      ++f.turns;
      if (*a.last == *index) ++f.same;
    }
    a.in_flight = index;
    events.emplace(clock.Now() + milliseconds(rng.UniformInt(1000, 4000)), i);
  }
  return f;
}

}  // namespace

TEST_CASE("with 8 endpoints at least 95% of turns reach the previous turn's endpoint", "[llm][pool]") {
  FakeClock clock;
  EndpointPool pool(Endpoints(8, 32), {}, clock);
  AffinityFigures f = Simulate(pool, clock, 128, 30, 400);
  REQUIRE(f.turns > 10000);
  CHECK(static_cast<double>(f.same) / static_cast<double>(f.turns) >= 0.95);
  // Conversations started spread over every endpoint.
  for (const auto& e : pool.Snapshot()) CHECK(e.affinity_started > 30);
}

TEST_CASE("without affinity turns scatter over the endpoints", "[llm][pool]") {
  FakeClock clock;
  EndpointPoolOptions options;
  options.affinity_slack = 0;
  EndpointPool pool(Endpoints(8, 32), options, clock);
  AffinityFigures f = Simulate(pool, clock, 128, 30, 400);
  CHECK(static_cast<double>(f.same) / static_cast<double>(f.turns) < 0.5);
}

TEST_CASE("a key leaves its endpoint when it is overloaded, ejected or full", "[llm][pool]") {
  FakeClock clock;
  EndpointPoolOptions options;
  options.eject_after_failures = 1;
  options.affinity_slack = 2;
  EndpointPool pool(Endpoints(2, 4), options, clock);
  // "a" stays on endpoint 0 while it holds at most 2 more than endpoint 1 or
  // is below half its cap of 4.
  CHECK(pool.Acquire("a") == std::optional<std::size_t>(0));
  CHECK(pool.Acquire("a") == std::optional<std::size_t>(0));
  CHECK(pool.Acquire("a") == std::optional<std::size_t>(0));
  CHECK(pool.Acquire("a") == std::optional<std::size_t>(1));  // 3 > 0 + 2: moved
  CHECK(pool.Acquire("a") == std::optional<std::size_t>(1));  // and stays there
  auto snap = pool.Snapshot();
  CHECK(snap[0].affinity_started == 1);
  CHECK(snap[0].affinity_kept == 2);
  CHECK(snap[1].affinity_moved_in == 1);
  CHECK(snap[1].affinity_kept == 1);
  pool.Release(1, FailureClass::kTransientServer);  // ejects endpoint 1
  CHECK(pool.Acquire("a") == std::optional<std::size_t>(0));

  EndpointPool capped(Endpoints(2, 1), options, clock);
  REQUIRE(capped.Acquire("k") == std::optional<std::size_t>(0));
  REQUIRE(capped.Acquire("j") == std::optional<std::size_t>(1));
  capped.Release(1, FailureClass::kNone);
  CHECK(capped.Acquire("k") == std::optional<std::size_t>(1));  // 0 is at its cap
}

TEST_CASE("a call held back names the cap that holds it", "[llm][pool]") {
  FakeClock clock;
  EndpointPoolOptions options;
  options.max_concurrency = 3;
  EndpointPool pool(Endpoints(2, 1), options, clock);
  AcquireHold hold = AcquireHold::kGlobalCap;
  REQUIRE(pool.Acquire("a", &hold).has_value());
  CHECK(hold == AcquireHold::kNone);
  REQUIRE(pool.Acquire("b", &hold).has_value());
  CHECK_FALSE(pool.Acquire("c", &hold).has_value());
  CHECK(hold == AcquireHold::kEndpointCaps);
  EndpointPool global(Endpoints(2, 0), options, clock);
  for (int i = 0; i < 3; ++i) REQUIRE(global.Acquire().has_value());
  CHECK_FALSE(global.Acquire({}, &hold).has_value());
  CHECK(hold == AcquireHold::kGlobalCap);
  global.SlowDown(0, milliseconds(1000));
  global.SlowDown(1, milliseconds(1000));
  for (int i = 0; i < 3; ++i) global.Release(static_cast<std::size_t>(i % 2), FailureClass::kNone);
  CHECK_FALSE(global.Acquire({}, &hold).has_value());
  CHECK(hold == AcquireHold::kNoneAvailable);
}

TEST_CASE("occupancy through start-up, busy, idle, capped and unavailable phases", "[llm][pool][occupancy]") {
  FakeClock clock;
  EndpointPoolOptions options;
  options.max_concurrency = 2;
  EndpointPool pool(Endpoints(2, 2), options, clock);
  clock.Advance(std::chrono::seconds(2));  // start-up: nothing sent yet
  REQUIRE(pool.Acquire("a") == std::optional<std::size_t>(0));
  REQUIRE(pool.Acquire("b") == std::optional<std::size_t>(1));
  clock.Advance(std::chrono::seconds(10));  // busy
  pool.Release(0, FailureClass::kNone);
  pool.Release(1, FailureClass::kNone);
  pool.RecordUsage(0, 1000, 900);
  clock.Advance(std::chrono::seconds(5));  // idle: the agents run commands
  REQUIRE(pool.Acquire("a") == std::optional<std::size_t>(0));
  REQUIRE(pool.Acquire("a") == std::optional<std::size_t>(0));
  AcquireHold hold = AcquireHold::kNone;
  CHECK_FALSE(pool.Acquire("c", &hold).has_value());
  REQUIRE(hold == AcquireHold::kGlobalCap);
  pool.SetHold(hold);
  clock.Advance(std::chrono::seconds(4));  // overloaded: endpoint 1 idles behind the global cap
  pool.Release(0, FailureClass::kNone);
  pool.Release(0, FailureClass::kNone);
  pool.SetHold(AcquireHold::kNone);
  pool.SlowDown(1, milliseconds(3000));
  clock.Advance(std::chrono::seconds(3));  // endpoint 1 rate limited
  auto snap = pool.Snapshot();
  const EndpointOccupancy& a = snap[0].occupancy;
  const EndpointOccupancy& b = snap[1].occupancy;
  CHECK(a.tracked_s == Approx(24));
  CHECK(a.in_flight_s == Approx(18));
  CHECK(a.peak_in_flight == 2);
  CHECK(a.idle_startup_s == Approx(2));
  CHECK(a.idle_no_request_s == Approx(8));
  CHECK(a.idle_cap_s == Approx(0));
  CHECK(static_cast<double>(a.cached_tokens) / static_cast<double>(a.prompt_tokens) == Approx(0.9));
  CHECK(b.tracked_s == Approx(24));
  CHECK(b.in_flight_s == Approx(10));
  CHECK(b.idle_startup_s == Approx(2));
  CHECK(b.idle_no_request_s == Approx(5));
  CHECK(b.idle_cap_s == Approx(4));
  CHECK(b.idle_unavailable_s == Approx(3));
}

}  // namespace seragen::llm
