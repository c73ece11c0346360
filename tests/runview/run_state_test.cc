#include "seragen/runview/run_state.h"

#include <catch2/catch.hpp>

#include "report/synthetic_run.h"
#include "seragen/base/file_util.h"
#include "seragen/journal/journal_reader.h"
#include "seragen/journal/run_journals.h"
#include "seragen/journal/run_paths.h"
#include "testing/temp_dir.h"

namespace seragen::runview {
namespace {

using testing::TempDir;

std::string MakeRun(const TempDir& dir, int shards) {
  report::testing::SyntheticRunOptions o;
  o.tasks = 30;
  o.shards = shards;
  o.trajectories = false;
  std::string run_dir = dir.path() + "/run";
  REQUIRE(report::testing::MakeSyntheticRun(run_dir, o).ok());
  return run_dir;
}

}  // namespace

TEST_CASE("FoldRun streams each journal to the state a fold of the loaded records gives", "[runview]") {
  TempDir dir;
  std::string run_dir = MakeRun(dir, 3);
  auto run = FoldRun(run_dir);
  REQUIRE(run.ok());
  auto loaded = journal::LoadRunJournals(run_dir);
  REQUIRE(loaded.ok());
  REQUIRE(run->shards.size() == loaded->size());
  for (std::size_t k = 0; k < loaded->size(); ++k) {
    ShardState in_memory = FoldShard((*loaded)[k].shard_dir, (*loaded)[k].journal);
    const ShardState& streamed = run->shards[k];
    CHECK(streamed.journal.records.empty());
    CHECK(streamed.journal.valid_bytes == in_memory.journal.valid_bytes);
    CHECK(streamed.tasks.finished_count() == in_memory.tasks.finished_count());
    REQUIRE(streamed.tasks.tasks().size() == in_memory.tasks.tasks().size());
    for (const auto& [id, p] : in_memory.tasks.tasks()) {
      const journal::TaskProgress* s = streamed.tasks.Find(id);
      REQUIRE(s != nullptr);
      CHECK(s->last == p.last);
      CHECK(s->tokens == p.tokens);
      CHECK(s->reached == p.reached);
    }
    CHECK(streamed.totals.rollout_exits == in_memory.totals.rollout_exits);
    CHECK(streamed.totals.first_at == in_memory.totals.first_at);
    CHECK(streamed.totals.accounting.wasted == in_memory.totals.accounting.wasted);
  }
  CHECK(run->shard_count() == 3);
  CHECK(run->plan.size() == 30);
}

TEST_CASE("a task in two shards belongs to the first shard by K", "[runview]") {
  TempDir dir;
  std::string run_dir = MakeRun(dir, 2);
  auto first = FoldRun(run_dir);
  REQUIRE(first.ok());
  const std::string id = first->plan[0].task_id;  // shard 0's
  std::string path = journal::JournalPath(journal::ShardDir(run_dir, 1));
  auto text = ReadFile(path);
  REQUIRE(text.ok());
  journal::JournalRecord again{id, journal::Stage::kSkipped, "judge_no", 1};
  auto line = journal::EncodeRecord(again);
  REQUIRE(line.ok());
  REQUIRE(WriteFileAtomic(path, *text + *line + "\n").ok());

  auto run = FoldRun(run_dir);
  REQUIRE(run.ok());
  CHECK(run->OwnerOf(id) == &run->shards[0]);
  CHECK(run->duplicate_tasks() == 1);
  std::size_t visits = 0, tasks = 0;
  run->ForEachTask([&](const ShardState& shard, const journal::TaskProgress& p) {
    tasks++;
    if (p.task_id != id) return;
    visits++;
    CHECK(shard.index == 0);
    CHECK(p.last.stage != journal::Stage::kSkipped);
  });
  CHECK(visits == 1);
  std::size_t held = run->shards[0].tasks.tasks().size() + run->shards[1].tasks.tasks().size();
  CHECK(tasks == held - 1);
  CHECK(run->shards[1].shadowed.count(id) == 1);

  // A run state built by hand (no IndexOwners) searches the shards instead: same answers.
  RunState by_hand;
  for (const ShardState& s : run->shards) by_hand.shards.push_back(s);
  std::size_t by_hand_tasks = 0;
  by_hand.ForEachTask([&](const ShardState& shard, const journal::TaskProgress& p) {
    by_hand_tasks++;
    if (p.task_id == id) CHECK(shard.index == 0);
  });
  CHECK(by_hand_tasks == tasks);
  CHECK(by_hand.duplicate_tasks() == 1);
}

TEST_CASE("FoldRun reads a journal that ends in a half-written line, and stops at a damaged one", "[runview]") {
  TempDir dir;
  std::string run_dir = MakeRun(dir, 1);
  std::string path = journal::JournalPath(journal::ShardDir(run_dir, 0));
  auto text = ReadFile(path);
  REQUIRE(text.ok());
  REQUIRE(WriteFileAtomic(path, *text + R"({"type":"task","task_id":"x","sta)").ok());
  auto torn = FoldRun(run_dir);
  REQUIRE(torn.ok());
  CHECK(torn->shards[0].journal.dropped_tail_bytes > 0);
  CHECK(torn->shards[0].tasks.Find("x") == nullptr);

  REQUIRE(WriteFileAtomic(path, *text + "{\"type\":\"task\",\"task_id\":\"x\",\"sta\n" + *text).ok());
  auto damaged = FoldRun(run_dir);
  REQUIRE_FALSE(damaged.ok());
  CHECK(damaged.status().code() == StatusCode::kDataLoss);
}

TEST_CASE("FoldRun without a plan fails with not found, naming tasks.jsonl", "[runview]") {
  TempDir dir;
  auto run = FoldRun(dir.path());
  REQUIRE_FALSE(run.ok());
  CHECK(run.status().code() == StatusCode::kNotFound);
  FoldOptions no_plan;
  no_plan.plan = false;
  CHECK(FoldRun(dir.path(), no_plan).ok());
}

}  // namespace seragen::runview
