#include "seragen/llm/endpoint_pool.h"

#include <catch2/catch.hpp>

namespace seragen::llm {

using std::chrono::milliseconds;

namespace {
std::vector<EndpointOptions> Three(int per_endpoint_cap = 0) {
  std::vector<EndpointOptions> v;
  for (const char* url : {"http://a/v1", "http://b/v1", "http://c/v1"}) {
    EndpointOptions e;
    e.base_url = url;
    e.max_concurrency = per_endpoint_cap;
    v.push_back(e);
  }
  return v;
}
}  // namespace

TEST_CASE("least outstanding requests routing", "[llm][pool]") {
  FakeClock clock;
  EndpointPool pool(Three(), {}, clock);
  CHECK(pool.Acquire() == std::optional<std::size_t>(0));
  CHECK(pool.Acquire() == std::optional<std::size_t>(1));
  CHECK(pool.Acquire() == std::optional<std::size_t>(2));
  CHECK(pool.Acquire() == std::optional<std::size_t>(0));
  pool.Release(1, FailureClass::kNone);
  CHECK(pool.Acquire() == std::optional<std::size_t>(1));
}

TEST_CASE("global and per-endpoint concurrency limits", "[llm][pool]") {
  FakeClock clock;
  EndpointPoolOptions options;
  options.max_concurrency = 4;
  EndpointPool capped(Three(1), {}, clock);
  for (int i = 0; i < 3; ++i) CHECK(capped.Acquire().has_value());
  CHECK_FALSE(capped.Acquire().has_value());
  capped.Release(2, FailureClass::kNone);
  CHECK(capped.Acquire() == std::optional<std::size_t>(2));
  EndpointPool global(Three(), options, clock);
  for (int i = 0; i < 4; ++i) CHECK(global.Acquire().has_value());
  CHECK_FALSE(global.Acquire().has_value());
}

TEST_CASE("rate-limit slowdown is shared and ends on time", "[llm][pool]") {
  FakeClock clock;
  EndpointPool pool(Three(), {}, clock);
  pool.SlowDown(0, milliseconds(3000));
  pool.SlowDown(1, milliseconds(1000));
  pool.SlowDown(2, milliseconds(2000));
  CHECK_FALSE(pool.Acquire().has_value());
  CHECK(pool.NextChange() == clock.Now() + milliseconds(1000));
  clock.Advance(milliseconds(1000));
  CHECK(pool.Acquire() == std::optional<std::size_t>(1));
}

TEST_CASE("ejection after repeated failures and probing back in", "[llm][pool]") {
  FakeClock clock;
  EndpointPoolOptions options;
  options.eject_after_failures = 2;
  options.probe_interval = milliseconds(1000);
  options.max_probe_interval = milliseconds(4000);
  EndpointPool pool(Three(), options, clock);
  for (int i = 0; i < 2; ++i) {
    REQUIRE(pool.Acquire() == std::optional<std::size_t>(0));
    pool.Release(0, FailureClass::kTransientNetwork);
  }
  auto snap = pool.Snapshot();
  CHECK(snap[0].ejected);
  CHECK(pool.Acquire() == std::optional<std::size_t>(1));
  CHECK(pool.DueProbes().empty());
  clock.Advance(milliseconds(1000));
  CHECK(pool.DueProbes() == std::vector<std::size_t>{0});
  CHECK(pool.DueProbes().empty());  // one probe per period
  pool.ProbeFailed(0);
  clock.Advance(milliseconds(1999));
  CHECK(pool.DueProbes().empty());  // interval doubled
  clock.Advance(milliseconds(1));
  CHECK(pool.DueProbes() == std::vector<std::size_t>{0});
  pool.ProbeSucceeded(0, 131072, "GLM");
  snap = pool.Snapshot();
  CHECK_FALSE(snap[0].ejected);
  CHECK(snap[0].context_window == std::optional<std::int64_t>(131072));
}

TEST_CASE("non-health failures do not eject, success resets the count", "[llm][pool]") {
  FakeClock clock;
  EndpointPoolOptions options;
  options.eject_after_failures = 2;
  std::vector<EndpointOptions> one = Three();
  one.resize(1);
  EndpointPool pool(one, options, clock);
  for (FailureClass c : {FailureClass::kContextOverflow, FailureClass::kRateLimited, FailureClass::kBadRequest,
                         FailureClass::kTransientServer, FailureClass::kNone, FailureClass::kTransientServer}) {
    REQUIRE(pool.Acquire() == std::optional<std::size_t>(0));
    pool.Release(0, c);
  }
  CHECK_FALSE(pool.Snapshot()[0].ejected);
}

}  // namespace seragen::llm
