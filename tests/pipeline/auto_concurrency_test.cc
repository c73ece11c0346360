#include "seragen/pipeline/auto_concurrency.h"

#include <catch2/catch.hpp>

#include "seragen/llm/observed_load.h"

namespace seragen::pipeline {
namespace {

using std::chrono::seconds;

// A fake node in front of one fake GPU server with `slots` sequences at once.
// Each task spends `request_share` of its time waiting for an answer (the
// rest it runs commands), so `limit` tasks keep limit x request_share
// requests outstanding; past the slots they queue. A slower server raises
// the share (answers take longer, commands do not).
struct FakeWorld {
  FakeClock clock;
  QueueExecutor loop{clock};
  int slots = 16;
  double request_share = 0.5;
  int limit = 0;
  int peak_limit = 0;
  double peak_waiting = 0;
  bool publish = true;  // the server publishes its load (else the client observes latency)
  double service_s_per_token = 0.02;
  llm::ObservedLoad observed;
  llm::EndpointState state;  // what the client's pool would hold

  double Outstanding() const { return limit * request_share; }

  LoadSample Sample() {
    const double outstanding = Outstanding();
    const double running = std::min<double>(outstanding, slots);
    peak_waiting = std::max(peak_waiting, outstanding - running);
    if (publish) return {{{running, outstanding - running}}, 0, "server metrics"};
    // Two seconds of answers: running sequences make tokens at the service
    // rate; every outstanding request accrues request time.
    state.outstanding = static_cast<int>(outstanding);
    state.occupancy.completion_tokens += static_cast<std::int64_t>(running * 2 / service_s_per_token);
    state.occupancy.answer_s += outstanding * 2;
    return {observed.Update({state}), 0, "observed latency"};
  }

  std::unique_ptr<AutoConcurrency> Make(int max_limit) {
    AutoConcurrencyOptions o;
    o.tuner.max_limit = max_limit;
    o.endpoint_slots = slots;
    o.bound_by = "memory";
    o.bound_detail = "test";
    return std::make_unique<AutoConcurrency>(
        loop, clock, o, [this] { return Sample(); }, [this] { return limit; },
        [this](int l) {
          limit = l;
          peak_limit = std::max(peak_limit, l);
        });
  }

  void RunFor(seconds s) {
    const auto end = clock.Now() + s;
    while (clock.Now() < end && loop.FireNextTimer()) loop.RunUntilIdle();
  }
};

}  // namespace

TEST_CASE("auto concurrency grows while the server keeps up, then holds its queue just non-empty",
          "[pipeline][auto_concurrency]") {
  FakeWorld w;
  auto a = w.Make(400);
  a->Start();
  CHECK(w.limit == 16);  // the servers' slots to start with
  w.RunFor(seconds(600));
  // 16 slots at half the tasks' time: 32 tasks fill them; the limit goes on
  // until a couple of requests wait and stops before the queue gets long.
  CHECK(w.limit > 32);
  CHECK(w.Outstanding() - w.slots >= 1);
  CHECK(w.Outstanding() - w.slots <= 2 + 0.5 * w.slots);
  AutoConcurrencyStatus s = a->status();
  CHECK(s.limit == w.limit);
  CHECK(s.raised > 0);
  CHECK(s.lowest == 16);
  CHECK(s.at_bound_s == 0);
  CHECK(s.load_source == "server metrics");
}

TEST_CASE("auto concurrency backs off when the server slows down mid-run", "[pipeline][auto_concurrency]") {
  FakeWorld w;
  auto a = w.Make(400);
  a->Start();
  w.RunFor(seconds(600));
  const int settled = w.limit;
  w.request_share = 0.8;  // answers take longer: more of each task's time is spent waiting for one
  w.RunFor(seconds(600));
  CHECK(w.limit < settled);
  CHECK(w.Outstanding() - w.slots <= 2 + 0.5 * w.slots);
  CHECK(a->status().lowered > 0);
  CHECK(w.peak_limit <= 400);
}

TEST_CASE("auto concurrency never passes the node's bound and says so while it holds tasks back",
          "[pipeline][auto_concurrency]") {
  FakeWorld w;
  auto a = w.Make(24);
  a->Start();
  w.RunFor(seconds(600));
  CHECK(w.limit == 24);
  CHECK(w.peak_limit == 24);
  AutoConcurrencyStatus s = a->status();
  CHECK(s.max_limit == 24);
  CHECK(s.at_bound_s > 400);  // the queues ran empty at the bound for most of the run
  CHECK(s.bound_by == "memory");
  a->Stop();
  w.RunFor(seconds(60));
  CHECK(w.loop.timers() == 0);  // stopped: no more samples
}

TEST_CASE("auto concurrency without published load adapts from observed latency", "[pipeline][auto_concurrency]") {
  FakeWorld w;
  w.publish = false;
  auto a = w.Make(400);
  a->Start();
  w.RunFor(seconds(900));
  CHECK(w.limit > 32);                             // raised past the slots while answers kept their speed
  CHECK(w.peak_waiting <= 2 + 0.5 * w.slots + 4);  // and stopped once they queued
  CHECK(a->status().load_source == "observed latency");
  const int settled = w.limit;
  w.request_share = 0.8;
  w.RunFor(seconds(600));
  CHECK(w.limit < settled);
}

}  // namespace seragen::pipeline
