#include "seragen/journal/run_paths.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace seragen::journal {

TEST_CASE("run directory paths are spelled once", "[journal][run_paths]") {
  CHECK(ConfigYamlPath("/r") == "/r/config.yaml");
  CHECK(ConfigJsonPath("/r") == "/r/config.json");
  CHECK(TasksPath("/r") == "/r/tasks.jsonl");
  CHECK(GraphDir("/r") == "/r/graph");
  CHECK(RepoCacheDir("/r") == "/r/repo-cache");
  CHECK(WorkcopiesDir("/r") == "/r/workcopies");
  CHECK(DataDir("/r") == "/r/data");
  CHECK(ShardDir("/r", 3) == "/r/shard-3");
  CHECK(JournalPath("/r/shard-3") == "/r/shard-3/journal.jsonl");
  CHECK(LockPath("/r/shard-3") == "/r/shard-3/lock");
  CHECK(ShardLogPath("/r/shard-3") == "/r/shard-3/seragen.log");
  CHECK(ShardSummaryPath("/r/shard-3") == "/r/shard-3/summary.json");
  CHECK(TrajectoryRef("3fa2", 1) == "trajectories/3fa2.r1.json");
  CHECK(RejectedRollout1Ref("3fa2", 2) == "trajectories/3fa2.r1.rejected2.json");
  CHECK_FALSE(ParseTrajectoryRef(RejectedRollout1Ref("3fa2", 2)).has_value());  // never taken for a rollout
  CHECK(IssueRef("3fa2") == "issues/3fa2.md");
  CHECK(ExportDataName("t2", "hermes") == "t2.hermes.jsonl");
  CHECK(ExportSummaryName("hf") == "summary.hf.json");
}

TEST_CASE("shard directory names round-trip", "[journal][run_paths]") {
  for (int k : {0, 1, 9, 10, 123, 2147483647}) {
    INFO(k);
    CHECK(ParseShardDirName(ShardDirName(k)) == k);
  }
}

TEST_CASE("malformed shard directory names are refused", "[journal][run_paths]") {
  const std::vector<std::string> bad = {"",
                                        "shard",
                                        "shard-",
                                        "shard-x",
                                        "shard-1x",
                                        "shard-x1",
                                        "shard--1",
                                        "shard-+1",
                                        "shard- 1",
                                        "shard-1 ",
                                        "shard-01",
                                        "shard-00",
                                        "Shard-1",
                                        "shards-1",
                                        "shard_1",
                                        "xshard-1",
                                        "shard-1.5",
                                        "shard-0x1",
                                        "shard-2147483648",
                                        "shard-99999999999999999999",
                                        std::string("shard-1\0", 8),
                                        "shard-\xd9\xa1"};
  for (const std::string& name : bad) {
    INFO(name);
    CHECK_FALSE(ParseShardDirName(name).has_value());
  }
}

TEST_CASE("trajectory and issue refs round-trip", "[journal][run_paths]") {
  for (const std::string id : {"3fa2c0d1e5", "a.b", "x.r1", "t-1_2"}) {
    for (int rollout : {1, 2}) {
      auto parsed = ParseTrajectoryRef(TrajectoryRef(id, rollout));
      REQUIRE(parsed.has_value());
      CHECK(*parsed == TrajectoryName{id, rollout});
    }
    CHECK(ParseIssueRef(IssueRef(id)) == id);
  }
}

TEST_CASE("malformed trajectory and issue refs are refused", "[journal][run_paths]") {
  for (const std::string ref :
       {"", "trajectories/", "trajectories/.r1.json", "trajectories/a.r3.json", "trajectories/a.r0.json",
        "trajectories/a.r01.json", "trajectories/a.r-1.json", "trajectories/a.r1.jsonx", "trajectories/a.json",
        "trajectories/a.rx.json", "trajectories/a/b.r1.json", "trajectories/...r1.json",
        "trajectories/a.r99999999999999999999.json", "trajectory/a.r1.json", "/trajectories/a.r1.json",
        "trajectoriesX/a.r1.json", "issues/a.md"}) {
    INFO(ref);
    CHECK_FALSE(ParseTrajectoryRef(ref).has_value());
  }
  for (const std::string ref : {"", "issues/", "issues/.md", "issues/a", "issues/a.md.txt", "issues/a/b.md",
                                "issues/...md", "issue/a.md", "trajectories/a.r1.json"}) {
    INFO(ref);
    CHECK_FALSE(ParseIssueRef(ref).has_value());
  }
}

}  // namespace seragen::journal
