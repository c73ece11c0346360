#include "seragen/pipeline/open_shard.h"

#include <catch2/catch.hpp>

#include <filesystem>

#include "seragen/journal/run_paths.h"
#include "testing/temp_dir.h"

namespace seragen::pipeline {
namespace {

// A prepared run of five planned tasks t0..t4 in `dir`, without repositories.
PreparedRun FiveTaskRun(const seragen::testing::TempDir& dir, const std::string& recipe = "recipe-1") {
  PreparedRun run;
  run.run_dir = dir.path();
  run.recipe_hash = recipe;
  for (int i = 0; i < 5; ++i) {
    callgraph::PlannedTask t;
    t.task_id = "t" + std::to_string(i);
    t.repo = "r";
    run.plan.push_back(t);
  }
  return run;
}

journal::JournalRecord FinalFailure(const std::string& task_id) {
  journal::JournalRecord r{task_id, journal::Stage::kFailed, "given up", 1};
  r.error = journal::ErrorInfo{{journal::ErrorFamily::kModel, "exit_format"}, "gave up", false};
  return r;
}

}  // namespace

TEST_CASE("open shard: its tasks, its directory, its journal locked", "[shard]") {
  seragen::testing::TempDir dir;
  std::string opened_dir;
  OpenShardOptions options;
  options.journal_opened = [&](const std::string& shard_dir) { opened_dir = shard_dir; };
  auto shard = OpenShard(FiveTaskRun(dir), ShardSpec{1, 2}, options, log::Logger("test"));
  REQUIRE(shard.ok());
  REQUIRE(shard->tasks.size() == 2);
  CHECK(shard->tasks[0].task_id == "t1");
  CHECK(shard->tasks[1].task_id == "t3");
  CHECK(shard->shard_dir == dir.Sub("shard-1"));
  CHECK(opened_dir == shard->shard_dir);
  CHECK(shard->run.plan.size() == 5);
  CHECK(shard->folded.tasks.tasks().empty());
  // A second writer of the same shard is refused while the first holds it.
  auto second = OpenShard(FiveTaskRun(dir), ShardSpec{1, 2}, {}, log::Logger("test"));
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == StatusCode::kFailedPrecondition);
}

TEST_CASE("open shard: the journal folded once, crash leftovers and finished turn logs removed", "[shard]") {
  seragen::testing::TempDir dir;
  {
    auto first = OpenShard(FiveTaskRun(dir), ShardSpec{0, 1}, {}, log::Logger("test"));
    REQUIRE(first.ok());
    REQUIRE(first->journal->Append(FinalFailure("t2")).ok());
  }
  const std::string shard_dir = dir.Sub("shard-0");
  dir.Write("shard-0/trajectories/t1.r1.json.tmp.123", "half");
  dir.Write("shard-0/" + journal::TurnLogRef("t2", 1, 1), "{}\n");
  dir.Write("shard-0/" + journal::TurnLogRef("t3", 1, 1), "{}\n");
  auto again = OpenShard(FiveTaskRun(dir), ShardSpec{0, 1}, {}, log::Logger("test"));
  REQUIRE(again.ok());
  CHECK(again->folded.tasks.IsFinished("t2"));
  CHECK(again->folded.tasks.finished_count() == 1);
  CHECK_FALSE(std::filesystem::exists(shard_dir + "/trajectories/t1.r1.json.tmp.123"));
  CHECK_FALSE(std::filesystem::exists(shard_dir + "/" + journal::TurnLogRef("t2", 1, 1)));
  CHECK(std::filesystem::exists(shard_dir + "/" + journal::TurnLogRef("t3", 1, 1)));  // t3 may still resume
}

TEST_CASE("open shard: a changed recipe needs the allowance, another layout is refused", "[shard]") {
  seragen::testing::TempDir dir;
  REQUIRE(OpenShard(FiveTaskRun(dir), ShardSpec{0, 2}, {}, log::Logger("test")).ok());
  auto changed = OpenShard(FiveTaskRun(dir, "recipe-2"), ShardSpec{0, 2}, {}, log::Logger("test"));
  REQUIRE_FALSE(changed.ok());
  CHECK(changed.status().code() == StatusCode::kFailedPrecondition);
  OpenShardOptions allow;
  allow.allow_config_change = true;
  CHECK(OpenShard(FiveTaskRun(dir, "recipe-2"), ShardSpec{0, 2}, allow, log::Logger("test")).ok());
  auto layout = OpenShard(FiveTaskRun(dir, "recipe-2"), ShardSpec{0, 3}, allow, log::Logger("test"));
  CHECK_FALSE(layout.ok());
}

}  // namespace seragen::pipeline
