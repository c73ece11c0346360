#include "seragen/runview/cost_ledger.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "seragen/base/file_util.h"
#include "seragen/journal/occupancy.h"
#include "seragen/journal/run_paths.h"
#include "seragen/runview/run_budget.h"
#include "seragen/runview/run_state.h"
#include "testing/temp_dir.h"

namespace seragen::runview {
namespace {

using journal::Stage;

journal::JournalRecord Spent(const std::string& id, Stage stage, std::int64_t prompt, std::int64_t cached,
                             std::int64_t completion) {
  journal::JournalRecord r{id, stage, stage == Stage::kVerified ? "accepted" : "submitted", 1};
  r.tokens = {.prompt_tokens = prompt, .completion_tokens = completion, .calls = 1, .cached_prompt_tokens = cached};
  return r;
}

// Two shards: task a (rollout 1, judge, issue, rollout 2) and task b
// (rollout 1, 400k prompt tokens of which 100k cached). `run_dir` holds the
// occupancy files when the test writes them.
RunState TwoShards(const Pricing& pricing, const std::string& run_dir = "") {
  journal::LoadedJournal s0, s1;
  s0.records = {Spent("a", Stage::kRollout1Done, 500'000, 0, 50'000), Spent("a", Stage::kJudgeDone, 100'000, 0, 0),
                Spent("a", Stage::kIssueDone, 0, 0, 50'000), Spent("a", Stage::kRollout2Done, 0, 0, 0)};
  s1.records = {Spent("b", Stage::kRollout1Done, 400'000, 100'000, 0)};
  RunState run;
  run.run_dir = run_dir;
  run.shards = {FoldShard("", s0), FoldShard("", s1)};
  config::Config saved;
  saved.llm.pricing = pricing;
  run.settings.saved = saved;
  return run;
}

Pricing PerToken() {
  Pricing p;
  p.prompt_per_mtok = 2.0;
  p.completion_per_mtok = 8.0;
  p.cached_per_mtok = 0.5;
  return p;
}

void WriteOccupancy(const std::string& run_dir, int shard, double tracked_s) {
  journal::OccupancyRecord o;
  o.endpoints.push_back({.endpoint = "http://gpu:8000/v1", .tracked_s = tracked_s});
  const std::string dir = journal::ShardDir(run_dir, shard);
  REQUIRE(MakeDirs(dir).ok());
  REQUIRE(WriteFileAtomic(journal::OccupancyPath(dir), journal::EncodeOccupancy(o)).ok());
}

}  // namespace

TEST_CASE("cost ledger: per-token prices cost each stage's recorded tokens, shared by the accepted rows", "[cost]") {
  CostLedger ledger = CostRun(TwoShards(PerToken()), 2);
  REQUIRE(ledger.known);
  // rollout1: a 500k at $2 + 50k out at $8, b 300k at $2 + 100k cached at $0.5.
  CHECK(ledger.by_stage.at(Stage::kRollout1Done).usd == Approx(1.0 + 0.4 + 0.6 + 0.05));
  CHECK(ledger.by_stage.at(Stage::kJudgeDone).usd == Approx(0.2));
  CHECK(ledger.by_stage.at(Stage::kIssueDone).usd == Approx(0.4));
  CHECK(ledger.by_stage.count(Stage::kRollout2Done) == 0);  // no tokens recorded: no made-up $0.00 row
  CHECK(ledger.total_usd == Approx(2.65));
  CHECK(ledger.per_accepted_usd == Approx(1.325));
  std::string shown;
  for (const CostLine& line : CostLines(ledger)) shown += line.label + "=" + line.value + ";";
  CHECK(shown == "total=$2.65;per accepted row=$1.32;rollout1_done=$2.05;issue_done=$0.40;judge_done=$0.20;");
  CHECK(FormatCost(ledger) ==
        "cost       total $2.65, per accepted row $1.32, rollout1_done $2.05, issue_done $0.40, judge_done $0.20 "
        "(per-token prices (llm.pricing) over the journals' tokens)\n");
  nlohmann::json j = nlohmann::json::parse(CostJson(ledger));
  CHECK(j["basis"] == "tokens");
  CHECK(j["total_usd"].get<double>() == Approx(2.65));
  CHECK(j["per_accepted_usd"].get<double>() == Approx(1.325));
  CHECK(j["by_stage"]["judge_done"].get<double>() == Approx(0.2));
  CHECK_FALSE(j.contains("gpu_hours"));
}

TEST_CASE("cost ledger: the run-wide budget prices the same usage the ledger does", "[cost][budget]") {
  RunState run = TwoShards(PerToken());
  CostLedger ledger = CostRun(run, 0);
  BudgetUse use = RunUse(run.shards, ledger.pricing);
  CHECK(use.tasks == 2);
  CHECK(use.tokens == 1'100'000);
  CHECK(use.cost_usd == Approx(ledger.total_usd));
  CHECK(ledger.per_accepted_usd == 0);  // none accepted: no per-row figure
  CHECK(CostLines(ledger).size() == 4);
}

TEST_CASE("cost ledger: a GPU-hour price charges the endpoints' recorded wall time", "[cost]") {
  testing::TempDir dir;
  WriteOccupancy(dir.path(), 0, 3600);
  WriteOccupancy(dir.path(), 1, 1800);
  Pricing gpu;
  gpu.gpu_hour_usd = 2.0;
  gpu.gpus_per_endpoint = 2;
  CostLedger ledger = CostRun(TwoShards(gpu, dir.path()), 4);
  REQUIRE(ledger.known);
  CHECK(ledger.gpu_hours == Approx(3.0));  // 1.5 h of endpoint wall time, 2 GPUs each
  CHECK(ledger.total_usd == Approx(6.0));
  CHECK(ledger.per_accepted_usd == Approx(1.5));
  // Stages share the total by their tokens: rollout 1 has 950k of 1.1M.
  CHECK(ledger.by_stage.at(Stage::kRollout1Done).usd == Approx(6.0 * 950.0 / 1100.0));
  CHECK(FormatCost(ledger).find("total $6.00, GPU-hours 3.00, per accepted row $1.50") != std::string::npos);
  nlohmann::json j = nlohmann::json::parse(CostJson(ledger));
  CHECK(j["basis"] == "gpu_hours");
  CHECK(j["gpu_hours"].get<double>() == Approx(3.0));
  // Tokens cost nothing under a GPU-hour price, so no token budget can be priced.
  CHECK(RunUse(TwoShards(gpu).shards, gpu).cost_usd == 0);
}

TEST_CASE("cost ledger: no price, or a GPU-hour price without wall time, gives no figure", "[cost]") {
  CostLedger unpriced = CostRun(TwoShards(Pricing{}), 2);
  CHECK_FALSE(unpriced.known);
  CHECK(CostLines(unpriced).empty());
  CHECK(FormatCost(unpriced).empty());
  CHECK(CostJson(unpriced) == "null");
  CHECK(CostBasis(unpriced).empty());
  testing::TempDir dir;  // no occupancy file
  Pricing gpu;
  gpu.gpu_hour_usd = 2.0;
  CostLedger no_wall = CostRun(TwoShards(gpu, dir.path()), 2);
  CHECK_FALSE(no_wall.known);
  CHECK(CostLines(no_wall).empty());
  CHECK(CostJson(no_wall) == "null");
  CHECK(FormatCost(no_wall).find("cost       unknown: llm.pricing.gpu_hour_usd is set") == 0);
}

TEST_CASE("cost ledger: counts and wall time read from outside input are bounded", "[cost]") {
  journal::TokenUsage hostile{.prompt_tokens = -5'000'000, .completion_tokens = 1'000'000, .cached_prompt_tokens = -3};
  CHECK(UsageCostUsd(hostile, PerToken()) == Approx(8.0));  // negative counts are 0
  testing::TempDir dir;
  WriteOccupancy(dir.path(), 0, -3600);
  Pricing gpu;
  gpu.gpu_hour_usd = 2.0;
  CHECK_FALSE(CostRun(TwoShards(gpu, dir.path()), 1).known);
}

}  // namespace seragen::runview
