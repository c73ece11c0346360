#include "seragen/report/run_view.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <map>

#include "report/index_charts.h"
#include "report/synthetic_run.h"
#include "seragen/base/file_util.h"
#include "seragen/journal/record.h"
#include "seragen/journal/run_paths.h"
#include "testing/temp_dir.h"

namespace seragen::report {
namespace {

// A synthetic run of `tasks` tasks over `shards` shards in DIR/run.
void MakeRun(const seragen::testing::TempDir& dir, std::size_t tasks, int shards) {
  testing::SyntheticRunOptions o;
  o.tasks = tasks;
  o.shards = shards;
  REQUIRE(testing::MakeSyntheticRun(dir.Sub("run"), o).ok());
}

TEST_CASE("LoadRunView gives one row per planned task with its outcome from the journal", "[report]") {
  seragen::testing::TempDir dir;
  MakeRun(dir, 30, 2);
  auto view = LoadRunView(dir.Sub("run"));
  REQUIRE(view.ok());
  REQUIRE(view->rows.size() == 30);
  std::map<std::string, std::size_t> outcomes;
  for (std::size_t i = 0; i < view->rows.size(); ++i) {
    INFO(i);
    CHECK(view->rows[i].OutcomeName() == testing::SyntheticOutcome(i));
    CHECK(view->rows[i].shard == static_cast<int>(i % 2));
    outcomes[std::string(view->rows[i].OutcomeName())]++;
  }
  CHECK(outcomes["accepted"] == 12);
  CHECK(view->status.planned == 30);
  CHECK(view->status.verified[journal::Verdict::kAccepted] == 12);
  CHECK(view->recipe_hash == "synthetic-recipe");
  CHECK(view->shard_dirs.size() == 2);
  const TaskRow& failed = view->rows[5];
  CHECK(failed.detail == "model.exit_format");
  CHECK(failed.error_message == "too many format errors <b>");
  CHECK(view->rows[1].OutcomeName() == "rejected");
  CHECK(view->rows[1].detail == "recall 0.50 < 0.75");  // why it was rejected
  const TaskRow& accepted = view->rows[0];
  REQUIRE(accepted.scores);
  CHECK(accepted.scores->recall == 1.0);
  CHECK(accepted.detail == "recall 1.00 >= 0.75");
  CHECK(accepted.demo_issue == "tidepool-short");
  CHECK(accepted.Directory() == "repo0/pkg/sub0");
  CHECK(accepted.tokens.calls == 2 * 6);  // six records of two calls each
}

TEST_CASE("the overview shows the secret counts of the latest export of each format", "[report]") {
  seragen::testing::TempDir dir;
  testing::SyntheticRunOptions o;
  o.tasks = 3;
  REQUIRE(testing::MakeSyntheticRun(dir.Sub("run"), o).ok());
  REQUIRE(MakeDirs(dir.Sub("run/data")).ok());
  REQUIRE(WriteFileAtomic(dir.Sub("run/data/summary.hf.json"),
                          R"({"format":"hf","secrets":{"rows_scanned":5,"rows_with_hits":2,"rows_redacted":2,)"
                          R"("rows_dropped":0,"rows_reported":0,"hits_by_rule":{"jwt":3}}})")
              .ok());
  auto view = LoadRunView(dir.Sub("run"));
  REQUIRE(view.ok());
  REQUIRE(view->status.export_secrets.count("hf") == 1);
  std::string html = OverviewSection(*view);
  CHECK(html.find("5 rows scanned, 2 with hits (2 redacted, 0 dropped, 0 reported); hits: 3 jwt") != std::string::npos);
}

TEST_CASE("the overview shows the soft/hard agreement once tasks have test evidence", "[report][evidence]") {
  seragen::testing::TempDir dir;
  MakeRun(dir, 3, 1);
  auto view = LoadRunView(dir.Sub("run"));
  REQUIRE(view.ok());
  CHECK(OverviewSection(*view).find("test-agreement") == std::string::npos);
  view->status.test_agreement.with_evidence = 3;
  view->status.test_agreement.soft_accepted_decided = 2;
  view->status.test_agreement.soft_accepted_agree = 1;
  view->status.test_agreement.by_verdict[static_cast<std::size_t>(verify::TestVerdict::kAgree)] = 1;
  view->status.test_agreement.agree_soft_accepted = 1;
  view->status.test_agreement.by_verdict[static_cast<std::size_t>(verify::TestVerdict::kNoSignal)] = 1;
  CHECK(OverviewSection(*view).find(
            "<span id=\"test-agreement\">1 of 2 soft-accepted task(s) agree on tests (50.0%); 1 "
            "of 1 test-agreeing task(s) soft-accepted (100.0%); 1 no signal, 0 unavailable") != std::string::npos);
}

TEST_CASE("the funnel counts each step and says why tasks dropped out", "[report]") {
  seragen::testing::TempDir dir;
  testing::SyntheticRunOptions o;
  o.tasks = 10;
  REQUIRE(testing::MakeSyntheticRun(dir.Sub("run"), o).ok());
  auto view = LoadRunView(dir.Sub("run"));
  REQUIRE(view.ok());
  Funnel f = ComputeFunnel(view->rows);
  // 10 planned; 9 started and submitted rollout 1 (one not started); the judge
  // passed 6 (skipped, failed and running did not get there); all 6 got an
  // issue and a submitted rollout 2; 4 accepted.
  CHECK(f.counts[0] == 10);
  CHECK(f.counts[1] == 9);
  CHECK(f.counts[2] == 6);
  CHECK(f.counts[3] == 6);
  CHECK(f.counts[4] == 6);
  CHECK(f.counts[5] == 4);
  CHECK(f.drops[1].at("planned") == 1);
  CHECK(f.drops[2].at("skipped/judge_no") == 1);
  CHECK(f.drops[2].at("failed/model.exit_format") == 1);
  CHECK(f.drops[2].at("running (rollout1_done)") == 1);
  CHECK(f.drops[5].at("rejected") == 2);
}

TEST_CASE("FindTask takes a whole id or a prefix naming one task", "[report]") {
  RunView view;
  for (const char* id : {"abc123", "abd456", "x"}) {
    TaskRow r;
    r.task_id = id;
    view.rows.push_back(r);
  }
  REQUIRE(FindTask(view, "abc") != nullptr);
  CHECK(FindTask(view, "abc")->task_id == "abc123");
  CHECK(FindTask(view, "ab") == nullptr);  // two match
  CHECK(FindTask(view, "x")->task_id == "x");
  CHECK(FindTask(view, "zzz") == nullptr);
  CHECK(FindTask(view, "") == nullptr);
}

TEST_CASE("PageName keeps plain ids and hashes anything that could be a path", "[report]") {
  CHECK(PageName("3fa2c0") == "3fa2c0.html");
  for (const char* id : {"../../etc/passwd", "a/b", ".hidden", "<x>", ""}) {
    std::string name = PageName(id);
    INFO(name);
    CHECK(name.find('/') == std::string::npos);
    CHECK(name.rfind("t-", 0) == 0);
  }
}

TEST_CASE("LoadRunView reads a run in progress whose journal ends in a half-written line", "[report]") {
  seragen::testing::TempDir dir;
  testing::SyntheticRunOptions o;
  o.tasks = 10;
  REQUIRE(testing::MakeSyntheticRun(dir.Sub("run"), o).ok());
  std::ofstream(dir.Sub("run/shard-0/journal.jsonl"), std::ios::app) << "{\"type\":\"task\",\"task_id\":\"00";
  auto view = LoadRunView(dir.Sub("run"));
  REQUIRE(view.ok());
  CHECK(view->rows.size() == 10);
  CHECK(view->rows[8].OutcomeName() == "running");
  CHECK(view->status.torn_tails == 1);
}

TEST_CASE("a task in two shards' journals gives one row, from the first shard", "[report]") {
  seragen::testing::TempDir dir;
  MakeRun(dir, 6, 3);
  auto before = LoadRunView(dir.Sub("run"));
  REQUIRE(before.ok());
  // Task 0 (shard 0, accepted) shows up failed in the journals of shards 1 and 2 too.
  journal::JournalRecord fail{before->rows[0].task_id, journal::Stage::kFailed, "", 1};
  fail.at = "2026-11-20T11:00:00.000Z";
  for (int k : {1, 2}) {
    std::ofstream(journal::JournalPath(journal::ShardDir(dir.Sub("run"), k)), std::ios::app)
        << *journal::EncodeRecord(fail) << "\n";
  }
  auto view = LoadRunView(dir.Sub("run"));
  REQUIRE(view.ok());
  CHECK(view->rows.size() == 6);
  CHECK(view->rows[0].shard == 0);
  CHECK(view->rows[0].OutcomeName() == "accepted");
  CHECK(view->rows[1].OutcomeName() == testing::SyntheticOutcome(1));  // shard 1's own task
  CHECK(view->rows[2].OutcomeName() == testing::SyntheticOutcome(2));
}

TEST_CASE("LoadRunView fails with not found for a directory without a plan", "[report]") {
  seragen::testing::TempDir dir;
  auto view = LoadRunView(dir.Sub("missing"));
  CHECK_FALSE(view.ok());
}

}  // namespace
}  // namespace seragen::report
