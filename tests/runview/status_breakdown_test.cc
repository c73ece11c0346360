#include "seragen/runview/status_breakdown.h"

#include <catch2/catch.hpp>

#include "seragen/journal/run_journals.h"
#include "seragen/runview/run_state.h"

namespace seragen::runview {
namespace {

using journal::Stage;

callgraph::PlannedTask Planned(const std::string& id, const std::string& repo, int category) {
  callgraph::PlannedTask t;
  t.task_id = id;
  t.repo = repo;
  t.category = category;
  return t;
}

journal::JournalRecord Rec(const std::string& id, Stage stage, const std::string& status) {
  journal::JournalRecord r;
  r.task_id = id;
  r.stage = stage;
  r.status = status;
  return r;
}

journal::ShardJournal Shard(int k, int n, std::vector<journal::JournalRecord> records) {
  journal::ShardJournal s;
  s.shard_dir = "/runs/r/shard-" + std::to_string(k);
  s.journal.has_header = true;
  s.journal.header.shard = k;
  s.journal.header.shards = n;
  s.journal.records = std::move(records);
  return s;
}

// Plan positions 0..5; with N = 3 shard 0 holds a, d; shard 1 b, e; shard 2 c, f.
std::vector<callgraph::PlannedTask> Plan() {
  return {Planned("a", "core", 0), Planned("b", "core", 1), Planned("c", "web", 0),
          Planned("d", "web", 1),  Planned("e", "core", 0), Planned("f", "web", 0)};
}

// The run these shards and this plan make, folded as FoldRun folds it.
RunState RunOf(std::vector<callgraph::PlannedTask> plan, const std::vector<journal::ShardJournal>& shards,
               std::vector<std::string> categories = {}) {
  RunState run;
  run.plan = std::move(plan);
  for (const auto& s : shards) run.shards.push_back(FoldShard(s.shard_dir, s.journal));
  run.settings.categories = std::move(categories);
  return run;
}

}  // namespace

TEST_CASE("breakdown: acceptance per category and repository and tokens per accepted", "[status]") {
  std::vector<journal::ShardJournal> shards = {
      Shard(0, 3,
            {Rec("a", Stage::kRollout1Done, "submitted"), Rec("a", Stage::kVerified, "accepted"),
             Rec("d", Stage::kVerified, "rejected")}),
      Shard(2, 3, {Rec("c", Stage::kVerified, "accepted"), Rec("f", Stage::kSkipped, "judge_no")})};
  StatusBreakdown b = ComputeBreakdown(RunOf(Plan(), shards, {"off-by-one", "null-check"}), 1'100'000);
  CHECK(b.by_category.at("off-by-one").verified == 2);
  CHECK(b.by_category.at("off-by-one").accepted == 2);
  CHECK(b.by_category.at("null-check").verified == 1);
  CHECK(b.by_category.at("null-check").accepted == 0);
  CHECK(b.by_repo.at("core").accepted == 1);
  CHECK(b.by_repo.at("web").verified == 2);
  CHECK(b.by_repo.at("web").accepted == 1);
  CHECK(b.accepted == 2);
  CHECK(b.tokens_per_accepted == Approx(550'000));
  std::string text = FormatBreakdown(b);
  CHECK(text.find("category   null-check 0/1 (0%), off-by-one 2/2 (100%)") != std::string::npos);
  CHECK(text.find("repository core 1/1 (100%), web 1/2 (50%)") != std::string::npos);
  CHECK(text.find("550000 tokens per accepted trajectory") != std::string::npos);
}

TEST_CASE("breakdown: a task counts under the category its accepted attempt was given", "[status]") {
  journal::JournalRecord retried = Rec("a", Stage::kRollout1Done, "submitted");
  retried.extra = journal::RolloutResult{true, "", 0, 0, 0, 1, 7};  // a judge retry drew category 1, planned 0
  std::vector<journal::ShardJournal> shards = {
      Shard(0, 1,
            {Rec("a", Stage::kRollout1Done, "submitted"), Rec("a", Stage::kJudgeDone, "no"), retried,
             Rec("a", Stage::kVerified, "accepted")})};
  StatusBreakdown b = ComputeBreakdown(RunOf(Plan(), shards, {"off-by-one", "null-check"}), 0);
  CHECK(b.by_category.count("off-by-one") == 0);
  CHECK(b.by_category.at("null-check").accepted == 1);
}

TEST_CASE("breakdown: every shard of N is listed, and the incomplete ones are named", "[status]") {
  std::vector<journal::ShardJournal> shards = {
      Shard(0, 3, {Rec("a", Stage::kVerified, "accepted"), Rec("d", Stage::kVerified, "rejected")}),
      Shard(2, 3, {Rec("c", Stage::kVerified, "accepted"), Rec("f", Stage::kRollout1Done, "submitted")})};
  StatusBreakdown b = ComputeBreakdown(RunOf(Plan(), shards), 0);
  REQUIRE(b.shards.size() == 3);
  CHECK(b.shards[0].complete());
  CHECK_FALSE(b.shards[1].has_journal);
  CHECK(b.shards[1].planned == 2);
  CHECK(b.shards[2].done == 1);
  CHECK(b.by_category.count("category 0") == 1);  // no names: the index
  std::string text = FormatBreakdown(b);
  CHECK(text.find("incomplete shards 1/3 (0 of 2 done, never ran), 2/3 (1 of 2 done)\n") != std::string::npos);
  // All done: no incomplete line (the Slurm merge step relies on it).
  std::vector<journal::ShardJournal> done = {
      shards[0], Shard(1, 3, {Rec("b", Stage::kSkipped, "judge_no"), Rec("e", Stage::kSkipped, "judge_no")}),
      Shard(2, 3, {Rec("c", Stage::kVerified, "accepted"), Rec("f", Stage::kVerified, "accepted")})};
  CHECK(FormatBreakdown(ComputeBreakdown(RunOf(Plan(), done), 0)).find("incomplete") == std::string::npos);
  // Before any shard ran, N is unknown: nothing to list.
  CHECK(ComputeBreakdown(RunOf(Plan(), {}), 0).shards.empty());
}

TEST_CASE("ETA from the remaining tasks and the rate", "[status]") {
  CHECK(EtaMinutes(30, 2.0) == Approx(15));
  CHECK(EtaMinutes(30, 0) < 0);
  CHECK(FormatEta(-1) == "ETA unknown");
  CHECK(FormatEta(0.5) == "ETA 30s");
  CHECK(FormatEta(15) == "ETA 15 min");
  CHECK(FormatEta(185) == "ETA 3h 05m");
}

}  // namespace seragen::runview
