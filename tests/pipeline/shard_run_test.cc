#include "seragen/pipeline/shard_run.h"

#include <catch2/catch.hpp>

#include <cstdlib>

#include "seragen/llm/failure.h"

namespace seragen::pipeline {

TEST_CASE("shard resolution: flag, then config, then Slurm, then 0/1", "[shard]") {
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  ::unsetenv("SLURM_ARRAY_TASK_COUNT");
  ::unsetenv("SLURM_ARRAY_TASK_MIN");
  auto s = ResolveShard("", "");
  REQUIRE(s.ok());
  CHECK((s->index == 0 && s->count == 1));
  s = ResolveShard("3/8", "1/2");
  CHECK((s->index == 3 && s->count == 8));
  s = ResolveShard("", "1/2");
  CHECK((s->index == 1 && s->count == 2));
  ::setenv("SLURM_ARRAY_TASK_ID", "7", 1);
  ::setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
  ::setenv("SLURM_ARRAY_TASK_MIN", "5", 1);  // --array=5-8
  s = ResolveShard("", "");
  REQUIRE(s.ok());
  CHECK((s->index == 2 && s->count == 4));
  CHECK(ResolveShard("1/2", "").value().index == 1);  // the flag still wins
  ::setenv("SLURM_ARRAY_TASK_ID", "x", 1);
  CHECK_FALSE(ResolveShard("", "").ok());
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  ::unsetenv("SLURM_ARRAY_TASK_COUNT");
  ::unsetenv("SLURM_ARRAY_TASK_MIN");
  for (const char* bad : {"2/2", "-1/3", "a/b", "3", "1/0"}) {
    INFO(bad);
    auto r = ResolveShard(bad, "");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("--shard") != std::string::npos);
  }
}

TEST_CASE("a shard's tasks are every count-th planned task from its index", "[shard]") {
  std::vector<callgraph::PlannedTask> plan(7);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    plan[i].task_id = "t" + std::to_string(i);
    plan[i].qualname = "f" + std::to_string(i);
    plan[i].category = static_cast<int>(i);
  }
  std::vector<callgraph::PlannedTask> tasks = ShardTasks(plan, ShardSpec{1, 3});
  REQUIRE(tasks.size() == 2);
  CHECK(tasks[0].task_id == "t1");
  CHECK(tasks[0].qualname == "f1");
  CHECK(tasks[1].task_id == "t4");
  CHECK(tasks[1].category == 4);
  CHECK(ShardTasks(plan, ShardSpec{}).size() == 7);
  CHECK(ShardDir("/r", ShardSpec{2, 3}) == "/r/shard-2");
}

TEST_CASE("shard result: config stop, then abort, then interrupt, then the tally", "[shard][exit]") {
  RunSummary s;
  s.planned = 4;
  s.outcomes = {
      {TaskOutcome::Kind::kVerified, 2}, {TaskOutcome::Kind::kSkipped, 1}, {TaskOutcome::Kind::kInfraFailure, 1}};
  TaskTally t = TallyOf(s);
  CHECK(t.planned == 4);
  CHECK(t.done == 3);
  CHECK(t.infra_failed == 1);
  CHECK(ClassifyShard(s, std::nullopt, false, t) == RunResult::kIncomplete);
  CHECK(ClassifyShard(s, std::nullopt, true, t) == RunResult::kInterrupted);
  // A quota stop aborts the run but is not a configuration error.
  std::optional<Status> quota = llm::MakeFailure(llm::FailureClass::kQuota, "quota");
  CHECK(ClassifyShard(s, quota, false, t) == RunResult::kIncomplete);
  s.aborted = true;
  CHECK(ClassifyShard(s, quota, true, t) == RunResult::kRuntimeError);
  std::optional<Status> config = llm::MakeFailure(llm::FailureClass::kConfig, "bad field");
  CHECK(ClassifyShard(s, config, true, t) == RunResult::kConfigStop);
  CHECK(StripFailureTag(config->message()).find("[llm:") == std::string::npos);
  CHECK(StripFailureTag("plain") == "plain");
}

}  // namespace seragen::pipeline
