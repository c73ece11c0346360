#include <catch2/catch.hpp>

#include <filesystem>

#include "report/synthetic_run.h"
#include "seragen/base/file_util.h"
#include "seragen/journal/occupancy.h"
#include "seragen/journal/run_paths.h"
#include "seragen/report/report_writer.h"
#include "testing/temp_dir.h"

namespace seragen::report {
namespace {

std::string IndexOf(const std::string& run_dir) {
  ReportOptions ro;
  ro.run_dir = run_dir;
  auto r = WriteReport(ro);
  REQUIRE(r.ok());
  auto text = ReadFile(r->index_path);
  REQUIRE(text.ok());
  return *text;
}

}  // namespace

TEST_CASE("the report shows each endpoint's occupancy, idle causes and cache hit rate", "[report]") {
  seragen::testing::TempDir dir;
  testing::SyntheticRunOptions o;
  o.tasks = 3;
  REQUIRE(testing::MakeSyntheticRun(dir.Sub("run"), o).ok());
  CHECK(IndexOf(dir.Sub("run")).find("id=\"occupancy\"") == std::string::npos);  // none saved: no section

  journal::OccupancyRecord r;
  journal::EndpointOccupancyRecord e;
  e.endpoint = "http://gpu0:8000/v1?<script>";  // names come from a file: escaped
  e.capacity = 16;
  e.peak_in_flight = 16;
  e.tracked_s = 100;
  e.in_flight_s = 1200;  // 12 of 16 on average
  e.idle_s = {{std::string(journal::kIdleNoRequest), 5}, {std::string(journal::kIdleCap), 15}};
  e.prompt_tokens = 1000;
  e.cached_tokens = 900;
  e.affinity_kept = 95;
  e.affinity_moved_in = 5;
  r.endpoints.push_back(e);
  r.held_s = {{"llm.max_concurrency", 15}};
  r.holds = {{"llm.max_concurrency", 3}};
  r.concurrency.push_back(
      {"auto", 36, 48, 16, 48, "memory", "40.0 GiB available, 1.0 GiB per task", "server metrics", 95});
  const std::string shard = journal::ShardDir(dir.Sub("run"), 0);
  std::filesystem::create_directories(shard);
  REQUIRE(WriteFileAtomic(journal::OccupancyPath(shard), journal::EncodeOccupancy(r)).ok());

  const std::string index = IndexOf(dir.Sub("run"));
  CHECK(index.find("<a href=\"#occupancy\">") != std::string::npos);
  CHECK(index.find("<code>http://gpu0:8000/v1?&lt;script&gt;</code>") != std::string::npos);
  CHECK(index.find("<script>\"") == std::string::npos);
  CHECK(index.find("<td class=\"num\">12.0</td><td class=\"num\">16 (75.0%)</td><td class=\"num\">16</td>"
                   "<td class=\"num\">20.0%</td>") != std::string::npos);
  CHECK(index.find("llm.max_concurrency 15.0%") != std::string::npos);
  CHECK(index.find("<td class=\"num\">90.0%</td><td class=\"num\">95.0%</td>") != std::string::npos);
  CHECK(index.find("held back  15 s by llm.max_concurrency (3 time(s))") != std::string::npos);
  CHECK(index.find("run.concurrency auto: 36 at once now") != std::string::npos);
}

}  // namespace seragen::report
