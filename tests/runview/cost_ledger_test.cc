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

constexpr const char* kLocal = "http://gpu0:8000/v1";
constexpr const char* kHosted = "https://api.example/v1";

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

// Records whose tokens name the endpoints that answered them: task a's
// rollout 1 split between a local endpoint and a hosted one, its judge on
// the hosted one, task b's rollout 1 on the local one, and an issue record
// as journals held it before endpoints were recorded.
RunState TwoEndpoints(const Pricing& local, const std::string& run_dir = "") {
  journal::LoadedJournal s0, s1;
  journal::JournalRecord r1 = Spent("a", Stage::kRollout1Done, 500'000, 0, 50'000);
  r1.endpoint_tokens = {{kLocal, {.prompt_tokens = 300'000, .completion_tokens = 30'000, .calls = 1}},
                        {kHosted, {.prompt_tokens = 200'000, .completion_tokens = 20'000, .calls = 1}}};
  journal::JournalRecord judge = Spent("a", Stage::kJudgeDone, 100'000, 0, 0);
  judge.endpoint_tokens = {{kHosted, judge.tokens}};
  journal::JournalRecord b1 = Spent("b", Stage::kRollout1Done, 400'000, 100'000, 0);
  b1.endpoint_tokens = {{kLocal, b1.tokens}};
  s0.records = {r1, judge, Spent("a", Stage::kIssueDone, 0, 0, 50'000)};
  s1.records = {b1};
  RunState run;
  run.run_dir = run_dir;
  run.shards = {FoldShard("", s0), FoldShard("", s1)};
  config::Config saved;
  saved.llm.pricing = PerToken();  // the hosted endpoint's, and the old record's
  saved.llm.endpoints = {{.base_url = kLocal, .pricing = local}, {.base_url = kHosted}};
  run.settings.saved = saved;
  return run;
}

void WriteTwoEndpointsOccupancy(const std::string& run_dir, double local_s, double hosted_s) {
  journal::OccupancyRecord o;
  o.endpoints.push_back({.endpoint = kLocal, .tracked_s = local_s});
  o.endpoints.push_back({.endpoint = kHosted, .tracked_s = hosted_s});
  const std::string dir = journal::ShardDir(run_dir, 0);
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
  BudgetUse use = RunUse(run.shards, ledger.prices);
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
  CHECK(RunUse(TwoShards(gpu).shards, PriceBook{gpu}).cost_usd == 0);
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

TEST_CASE("cost ledger: each endpoint's tokens are priced with that endpoint's prices", "[cost]") {
  Pricing local;
  local.prompt_per_mtok = 0.2;
  local.completion_per_mtok = 0.4;
  local.cached_per_mtok = 0.1;
  RunState run = TwoEndpoints(local);
  CostLedger ledger = CostRun(run, 2);
  REQUIRE(ledger.known);
  // rollout 1: a on the local endpoint 300k at $0.2 + 30k at $0.4, on the hosted one 200k at $2 + 20k at $8;
  // b on the local one 300k at $0.2 + 100k cached at $0.1.
  CHECK(ledger.by_stage.at(Stage::kRollout1Done).usd == Approx(0.06 + 0.012 + 0.4 + 0.16 + 0.06 + 0.01));
  CHECK(ledger.by_stage.at(Stage::kJudgeDone).usd == Approx(0.2));  // hosted: 100k at $2
  CHECK(ledger.by_stage.at(Stage::kIssueDone).usd == Approx(0.4));  // no endpoint named: llm.pricing, 50k at $8
  CHECK(ledger.total_usd == Approx(1.302));
  CHECK(ledger.per_accepted_usd == Approx(0.651));
  CHECK(FormatCost(ledger) ==
        "cost       total $1.30, per accepted row $0.65, rollout1_done $0.70, issue_done $0.40, judge_done $0.20 "
        "(per-token prices (llm.pricing and llm.endpoints[].pricing) over each endpoint's tokens)\n");
  // The budget prices the same tokens the same way.
  CHECK(RunUse(run.shards, ledger.prices).cost_usd == Approx(ledger.total_usd));
}

TEST_CASE("cost ledger: an endpoint with a GPU-hour price is charged its wall time, the others their tokens",
          "[cost]") {
  testing::TempDir dir;
  WriteTwoEndpointsOccupancy(dir.path(), 3600, 3600);
  Pricing local;
  local.gpu_hour_usd = 2.0;
  CostLedger ledger = CostRun(TwoEndpoints(local, dir.path()), 2);
  REQUIRE(ledger.known);
  CHECK(ledger.gpu_hours == Approx(1.0));  // the local endpoint's hour; the hosted one is priced per token
  // $2 of GPU time (all of it to rollout 1, whose tokens alone the local endpoint answered), the hosted
  // endpoint's tokens (rollout 1 $0.56, judge $0.2) and the old record's (issue $0.4).
  CHECK(ledger.by_stage.at(Stage::kRollout1Done).usd == Approx(2.0 + 0.56));
  CHECK(ledger.by_stage.at(Stage::kJudgeDone).usd == Approx(0.2));
  CHECK(ledger.total_usd == Approx(3.16));
  nlohmann::json j = nlohmann::json::parse(CostJson(ledger));
  CHECK(j["basis"] == "mixed");
  CHECK(j["gpu_hours"].get<double>() == Approx(1.0));
  CHECK(j["total_usd"].get<double>() == Approx(3.16));
  // Without the local endpoint's wall time the cost is not known.
  testing::TempDir empty;
  CHECK_FALSE(CostRun(TwoEndpoints(local, empty.path()), 2).known);
}

}  // namespace seragen::runview
