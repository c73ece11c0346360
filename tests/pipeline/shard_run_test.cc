#include "seragen/pipeline/shard_run.h"

#include <catch2/catch.hpp>

#include "seragen/llm/failure.h"

namespace seragen::pipeline {

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
  // The class travels typed: a stop whose text merely reads like one is not a config stop.
  std::optional<Status> look_alike = FailedPreconditionError("[llm:config] bad field");
  CHECK(ClassifyShard(s, look_alike, true, t) == RunResult::kRuntimeError);
  CHECK(config->message() == "bad field");
}

TEST_CASE("a configuration stop: its class decides the result, summary.json shows its words untagged",
          "[shard][exit]") {
  ShardOutcome o;
  o.summary.planned = 2;
  o.run_stop = llm::MakeFailure(llm::FailureClass::kConfig,
                                "the endpoint rejected the same request on 3 consecutive calls: HTTP 400");
  o.tally = TallyOf(o.summary);
  CHECK(ClassifyShard(o.summary, o.run_stop, false, o.tally) == RunResult::kConfigStop);
  const std::string text = ShardSummaryText(ShardSpec{1, 2}, o);
  CHECK(text.find(R"("config_stop": "the endpoint rejected the same request on 3 consecutive calls: HTTP 400")") !=
        std::string::npos);
  CHECK(text.find("[llm:") == std::string::npos);
  // The same words without the typed class are no configuration stop.
  o.run_stop = FailedPreconditionError(o.run_stop->Text());
  CHECK(ClassifyShard(o.summary, o.run_stop, false, o.tally) == RunResult::kNothingSucceeded);
}

}  // namespace seragen::pipeline
