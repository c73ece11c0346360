#include "seragen/journal/occupancy.h"

#include <catch2/catch.hpp>

namespace seragen::journal {

namespace {
constexpr const char* kSample = R"({"endpoints": [{"endpoint": "http://gpu0:8000/v1", "capacity": 32, "in_flight": 5,
  "peak_in_flight": 32, "tracked_s": 100, "in_flight_s": 2400, "idle_s": {"start-up": 2, "no request ready": 8},
  "prompt_tokens": 1000, "cached_tokens": 910, "affinity_kept": 97, "affinity_moved_in": 3, "affinity_started": 10}],
  "held_s": {"llm.max_concurrency": 12.5}, "holds": {"llm.max_concurrency": 4}})";

OccupancyRecord Sample() {
  auto r = DecodeOccupancy(kSample);
  REQUIRE(r.ok());
  return *r;
}
}  // namespace

TEST_CASE("occupancy record: encode, decode, merge", "[journal][occupancy]") {
  auto decoded = DecodeOccupancy(EncodeOccupancy(Sample()));
  REQUIRE(decoded.ok());
  REQUIRE(decoded->endpoints.size() == 1);
  const auto& e = decoded->endpoints[0];
  CHECK(e.endpoint == "http://gpu0:8000/v1");
  CHECK(e.MeanInFlight() == Approx(24));
  CHECK(e.IdleSeconds() == Approx(10));
  CHECK(e.cached_tokens == 910);
  CHECK(e.affinity_moved_in == 3);
  CHECK(decoded->held_s.at("llm.max_concurrency") == Approx(12.5));
  CHECK(decoded->holds.at("llm.max_concurrency") == 4);
  OccupancyRecord merged = *decoded;
  MergeOccupancy(Sample(), merged);
  CHECK(merged.endpoints.size() == 1);
  CHECK(merged.endpoints[0].tracked_s == Approx(200));
  CHECK(merged.endpoints[0].idle_s.at("no request ready") == Approx(16));
  CHECK(merged.holds.at("llm.max_concurrency") == 8);
}

TEST_CASE("occupancy record: damaged files are refused, naming the problem", "[journal][occupancy]") {
  CHECK_FALSE(DecodeOccupancy("not json").ok());
  CHECK_FALSE(DecodeOccupancy("[[[[[[[[[[]]]]]]]]]]").ok());
  CHECK_THAT(DecodeOccupancy(R"({"endpoints":[{"capacity":3}]})").status().message(),
             Catch::Contains("no endpoint URL"));
  CHECK_THAT(DecodeOccupancy(R"({"endpoints":[{"endpoint":"x","in_flight_s":"lots"}]})").status().message(),
             Catch::Contains("in_flight_s"));
  CHECK_THAT(DecodeOccupancy(R"({"holds":{"cap":-1}})").status().message(), Catch::Contains("cap"));
}

}  // namespace seragen::journal

namespace seragen::journal {

TEST_CASE("occupancy record: the run's concurrency round-trips and merges per shard", "[journal][occupancy]") {
  OccupancyRecord r;
  r.concurrency.push_back(
      {"auto", 36, 48, 16, 40, "memory", "40.0 GiB available, 1.0 GiB per task", "server metrics", 120.5});
  auto decoded = DecodeOccupancy(EncodeOccupancy(r));
  REQUIRE(decoded.ok());
  REQUIRE(decoded->concurrency.size() == 1);
  const ConcurrencyRecord& c = decoded->concurrency[0];
  CHECK(c.mode == "auto");
  CHECK(c.limit == 36);
  CHECK(c.max_limit == 48);
  CHECK(c.lowest == 16);
  CHECK(c.highest == 40);
  CHECK(c.bound_by == "memory");
  CHECK(c.load_source == "server metrics");
  CHECK(c.at_bound_s == Approx(120.5));
  OccupancyRecord merged;
  MergeOccupancy(*decoded, merged);
  MergeOccupancy(*decoded, merged);
  CHECK(merged.concurrency.size() == 2);
  CHECK(DecodeOccupancy("{}")->concurrency.empty());
  CHECK_THAT(DecodeOccupancy(R"({"concurrency":{"mode":3}})").status().message(), Catch::Contains("mode"));
  CHECK_THAT(DecodeOccupancy(R"({"concurrency":[]})").status().message(), Catch::Contains("concurrency"));
}

}  // namespace seragen::journal
