#include "seragen/runview/endpoint_occupancy.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "seragen/base/file_util.h"
#include "seragen/journal/run_paths.h"
#include "testing/temp_dir.h"

namespace seragen::runview {

TEST_CASE("status reads every shard's occupancy and shows it per endpoint", "[runview][occupancy]") {
  testing::TempDir dir;
  const std::string run = dir.path();
  // 12 of 16 in flight on average; idle 5 s with nothing to send, 15 s behind the cap.
  const std::string record = R"({"endpoints": [{"endpoint": "http://gpu0/v1", "capacity": 16, "peak_in_flight": 16,
    "tracked_s": 100, "in_flight_s": 1200, "idle_s": {"no request ready": 5, "llm.max_concurrency": 15},
    "prompt_tokens": 100, "cached_tokens": 90, "affinity_kept": 95, "affinity_moved_in": 5}],
    "held_s": {"llm.max_concurrency": 15}, "holds": {"llm.max_concurrency": 3}})";
  for (int shard : {0, 1}) {
    std::filesystem::create_directories(journal::ShardDir(run, shard));
    REQUIRE(WriteFileAtomic(journal::OccupancyPath(journal::ShardDir(run, shard)), record).ok());
  }
  std::filesystem::create_directories(journal::ShardDir(run, 2));
  REQUIRE(WriteFileAtomic(journal::OccupancyPath(journal::ShardDir(run, 2)), "{\"endpoints\": 3}").ok());
  std::vector<std::string> problems;
  journal::OccupancyRecord merged = ReadRunOccupancy(run, &problems);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0], Catch::Contains("shard-2"));
  std::string text = FormatOccupancy(merged);
  CHECK_THAT(text, Catch::Contains("http://gpu0/v1: 12.0/16 (75%) in flight on average, peak 16; idle 20.0%"));
  CHECK_THAT(text, Catch::Contains("llm.max_concurrency 15.0%"));
  CHECK_THAT(text, Catch::Contains("cache hit 90.0%"));
  CHECK_THAT(text, Catch::Contains("95.0% of calls on the task's previous endpoint"));
  CHECK_THAT(text, Catch::Contains("held back  30 s by llm.max_concurrency (6 time(s))"));
  auto j = nlohmann::json::parse(OccupancyJson(merged));
  CHECK(j["endpoints"][0]["occupancy"].get<double>() == Approx(0.75));
  CHECK(j["endpoints"][0]["idle_causes"]["llm.max_concurrency"].get<double>() == Approx(0.15));
  CHECK(j["endpoints"][0]["cache_hit_rate"].get<double>() == Approx(0.9));
  CHECK(j["held_back"]["llm.max_concurrency"]["times"] == 6);
}

}  // namespace seragen::runview

namespace seragen::runview {

TEST_CASE("status shows each shard's auto concurrency and the time the node's bound held it back",
          "[runview][occupancy]") {
  journal::OccupancyRecord r;
  r.concurrency.push_back(
      {"auto", 36, 48, 16, 48, "memory", "40.0 GiB available, 1.0 GiB per task", "server metrics", 95});
  r.concurrency.push_back({"fixed", 8, 8, 8, 8, "", "", "", 0});
  std::string text = FormatOccupancy(r);
  CHECK_THAT(text, Catch::Contains("run.concurrency auto: 36 at once now (16 to 48 so far), at most 48 on this node "
                                   "(memory: 40.0 GiB available, 1.0 GiB per task); load from server metrics"));
  CHECK_THAT(text, Catch::Contains("held back  95 s by the node's bound of 48 tasks"));
  CHECK_THAT(text, Catch::Contains("run.concurrency 8: 8 at once"));
  auto j = nlohmann::json::parse(OccupancyJson(r));
  REQUIRE(j["concurrency"].size() == 2);
  CHECK(j["concurrency"][0]["at_bound_s"].get<double>() == Approx(95));
  CHECK(j["concurrency"][1]["mode"] == "fixed");
  CHECK_FALSE(nlohmann::json::parse(OccupancyJson({})).contains("concurrency"));
}

}  // namespace seragen::runview
