// `seragen status --json` over fixture runs: byte-identical to the golden
// file (written by the status from before the read side became one fold;
// its "cost" is the cost ledger's, cost_ledger.h), and a task found in two
// shards counted once.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "report/synthetic_run.h"
#include "seragen/base/file_util.h"
#include "seragen/journal/record.h"
#include "seragen/journal/run_paths.h"
#include "seragen/journal/shard_lock.h"
#include "seragen/runview/run_settings.h"
#include "seragen/runview/status_report.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::runview {
namespace {

using testing::TempDir;

// 40 synthetic tasks over 2 shards, with a saved config that names the
// source tree's prompts (category names), prices tokens and sets a budget.
std::string MakeFixtureRun(const std::string& run_dir) {
  report::testing::SyntheticRunOptions o;
  o.tasks = 40;
  o.shards = 2;
  o.trajectories = false;
  REQUIRE(report::testing::MakeSyntheticRun(run_dir, o).ok());
  const std::string config = "prompts:\n  dir: " + seragen::testing::SourceDir() +
                             "/prompts\n"
                             "repos:\n  - name: repo0\n    source: /nonexistent/repo0\n"
                             "llm:\n  endpoints:\n    - base_url: http://127.0.0.1:9/v1\n"
                             "  pricing:\n    prompt_per_mtok: 2.0\n    completion_per_mtok: 8.0\n"
                             "budget:\n  max_tasks: 100\n";
  REQUIRE(WriteFileAtomic(journal::ConfigYamlPath(run_dir), config).ok());
  REQUIRE(LoadSavedConfig(run_dir).ok());
  return run_dir;
}

std::string Golden() {
  auto text = ReadFile(seragen::testing::SourcePath("tests/runview/golden/status_synthetic.json"));
  REQUIRE(text.ok());
  return *text;
}

// Appends task `id`'s records again, as shard K's: a re-sharded rerun that
// ran a task another shard had already run.
void AppendToShard(const std::string& run_dir, int k, const std::string& id) {
  std::string path = journal::JournalPath(journal::ShardDir(run_dir, k));
  auto text = ReadFile(path);
  REQUIRE(text.ok());
  std::string more = *text;
  for (journal::Stage stage : {journal::Stage::kRollout1Done, journal::Stage::kVerified}) {
    journal::JournalRecord r{id, stage, stage == journal::Stage::kVerified ? "accepted" : "submitted", 1};
    r.at = "2026-11-20T10:00:30.000Z";
    auto line = journal::EncodeRecord(r);
    REQUIRE(line.ok());
    more += *line + "\n";
  }
  REQUIRE(WriteFileAtomic(path, more).ok());
}

}  // namespace

TEST_CASE("status --json of the fixture run is what it was before the one fold", "[status]") {
  TempDir dir;
  std::string run_dir = MakeFixtureRun(dir.path() + "/run");
  auto status = ReadStatus(run_dir);
  REQUIRE(status.ok());
  CHECK(StatusJson(*status) == Golden());
}

TEST_CASE("a task found in two shards counts once in status, as in export and report rows", "[status]") {
  TempDir dir;
  std::string run_dir = MakeFixtureRun(dir.path() + "/run");
  auto before = ReadStatus(run_dir);
  REQUIRE(before.ok());
  // Task 0 ran in shard 0; shard 1 runs it again (and accepts it).
  AppendToShard(run_dir, 1, "0000000000005eed0000");
  auto after = ReadStatus(run_dir);
  REQUIRE(after.ok());
  CHECK(after->started == before->started);
  CHECK(after->finished == before->finished);
  CHECK(after->by_stage == before->by_stage);
  CHECK(after->verified == before->verified);
  CHECK(after->breakdown.accepted == before->breakdown.accepted);
  // The budget counts starts as the run side checks them (run_budget.h
  // UseOf per shard): shard 1 started the task again.
  CHECK(after->budget_used.tasks == before->budget_used.tasks + 1);
  // Its records were written: their tokens and rollout exits still count.
  CHECK(after->rollout_exits.at("submitted") == before->rollout_exits.at("submitted") + 1);
  // Each shard's own progress counts the tasks in its journal.
  CHECK(after->breakdown.shards[1].done == before->breakdown.shards[1].done + 1);
}

TEST_CASE("status gives an ETA only while a run writes a shard", "[status]") {
  TempDir dir;
  std::string run_dir = MakeFixtureRun(dir.path() + "/run");
  auto stopped = ReadStatus(run_dir);
  REQUIRE(stopped.ok());
  REQUIRE(stopped->finished < stopped->planned);
  CHECK_FALSE(stopped->running);
  CHECK(stopped->eta_minutes == -1);
  CHECK(FormatStatus(*stopped).find("ETA") == std::string::npos);
  auto lock = journal::ShardLock::Acquire(journal::LockPath(journal::ShardDir(run_dir, 1)), "shard 1/2");
  REQUIRE(lock.ok());
  auto running = ReadStatus(run_dir);
  REQUIRE(running.ok());
  CHECK(running->running);
  CHECK(running->eta_minutes > 0);
  CHECK(FormatStatus(*running).find("ETA") != std::string::npos);
}

TEST_CASE("status counts env_broken rollouts and reports the environment's health", "[status]") {
  TempDir dir;
  std::string run_dir = MakeFixtureRun(dir.path() + "/run");
  auto before = ReadStatus(run_dir);
  REQUIRE(before.ok());
  CHECK(before->env_broken == 0);
  CHECK(before->rollouts > 0);
  std::string path = journal::JournalPath(journal::ShardDir(run_dir, 0));
  journal::JournalRecord r{"0000000000005eed0000", journal::Stage::kRollout2Done, "submitted", 1};
  journal::RolloutResult rr{true, ""};
  rr.env_broken = 2;
  r.extra = rr;
  r.at = "2026-11-20T10:00:30.000Z";
  auto line = journal::EncodeRecord(r);
  REQUIRE(line.ok());
  REQUIRE(WriteFileAtomic(path, *ReadFile(path) + *line + "\n").ok());
  auto after = ReadStatus(run_dir);
  REQUIRE(after.ok());
  CHECK(after->rollouts == before->rollouts + 1);
  CHECK(after->env_broken == 1);  // rollouts, not commands
  nlohmann::json j = nlohmann::json::parse(StatusJson(*after));
  CHECK(j["env_health"]["env_broken"] == 1);
  CHECK(j["env_health"]["rollouts"] == after->rollouts);
  CHECK(FormatStatus(*after).find("failed to import it (env_broken)") != std::string::npos);
}

TEST_CASE("status counts failures by the family of their class, an unknown family with the model's",
          "[status][blame]") {
  TempDir dir;
  std::string run_dir = MakeFixtureRun(dir.path() + "/run");
  auto before = ReadStatus(run_dir);
  REQUIRE(before.ok());
  std::string path = journal::JournalPath(journal::ShardDir(run_dir, 0));
  std::string text = *ReadFile(path);
  const char* classes[] = {"config.issue.config", "config.exit_config", "infra.exit_llm_error", "oops.older"};
  for (std::size_t i = 0; i < std::size(classes); ++i) {
    journal::JournalRecord r{"f" + std::to_string(i), journal::Stage::kFailed, "issue", 1};
    r.error = journal::ErrorInfo{journal::ParseErrorClass(classes[i]), "x", true};
    r.at = "2026-11-20T10:00:30.000Z";
    text += *journal::EncodeRecord(r) + "\n";
  }
  REQUIRE(WriteFileAtomic(path, text).ok());
  auto after = ReadStatus(run_dir);
  REQUIRE(after.ok());
  CHECK(CountsByName(after->config_failures) ==
        std::map<std::string, std::size_t>{{"config.exit_config", 1}, {"config.issue.config", 1}});
  CHECK(CountsByName(after->infra_failures) == std::map<std::string, std::size_t>{{"infra.exit_llm_error", 1}});
  CHECK(CountsByName(after->model_failures).at("oops.older") == 1);
  CHECK(FormatStatus(*after).find("failures   1 infrastructure, 5 model, 2 configuration\n") != std::string::npos);
  CHECK(FormatStatus(*before).find("configuration") == std::string::npos);
  nlohmann::json j = nlohmann::json::parse(StatusJson(*after));
  CHECK(j["config_failures"]["config.issue.config"] == 1);
}

// Writes the fixture run to $SERAGEN_FIXTURE_RUN_DIR, for making the golden
// file with a seragen binary of another version (hidden: run by name only).
TEST_CASE("make the status fixture run", "[.make-fixture]") {
  const char* where = std::getenv("SERAGEN_FIXTURE_RUN_DIR");
  REQUIRE(where != nullptr);
  MakeFixtureRun(where);
}

}  // namespace seragen::runview
