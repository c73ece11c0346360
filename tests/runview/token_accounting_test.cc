#include "seragen/runview/token_accounting.h"

#include <catch2/catch.hpp>

#include "seragen/runview/run_state.h"
#include "seragen/runview/status_report.h"

namespace seragen::runview {
namespace {

using journal::JournalRecord;
using journal::Stage;

JournalRecord Rec(const std::string& task, Stage stage, const std::string& status, std::int64_t prompt,
                  std::int64_t cached = 0, std::int64_t completion = 0) {
  JournalRecord r{task, stage, status, 1};
  r.tokens.prompt_tokens = prompt;
  r.tokens.cached_prompt_tokens = cached;
  r.tokens.completion_tokens = completion;
  return r;
}

// What the fold accounts for one shard holding these records.
void AccountTokens(std::vector<JournalRecord> records, TokenAccounting* acc) {
  journal::LoadedJournal journal;
  journal.records = std::move(records);
  *acc = FoldShard("", journal).totals.accounting;
}

// The status JSON of a run whose only figures are these.
nlohmann::json StatusJsonOf(const TokenAccounting& acc) {
  StatusReport r;
  r.tokens = acc;
  return nlohmann::json::parse(StatusJson(r));
}

}  // namespace

TEST_CASE("cache hit rate per stage from the stage records", "[status][tokens]") {
  TokenAccounting acc;
  AccountTokens({Rec("a", Stage::kRollout1Done, "submitted", 1000, 900), Rec("a", Stage::kJudgeDone, "yes", 100),
                 Rec("a", Stage::kIssueDone, "written", 200, 0), Rec("a", Stage::kRollout2Done, "submitted", 500, 400),
                 Rec("a", Stage::kVerified, "accepted", 0)},
                &acc);
  CHECK(acc.cache_by_stage["rollout1"].HitRate() == 0.9);
  CHECK(acc.cache_by_stage["rollout2"].HitRate() == 0.8);
  CHECK(acc.cache_by_stage["issue"].HitRate() == 0);
  CHECK(acc.wasted_total == 0);  // accepted: nothing wasted
  nlohmann::json j = StatusJsonOf(acc);
  CHECK(j["prompt_cache"]["rollout1"]["hit_rate"] == 0.9);
  CHECK(FormatTokenAccounting(acc).find("rollout1 90.0%") != std::string::npos);
}

TEST_CASE("tokens of rejected attempts and unaccepted tasks are counted as waste", "[status][tokens]") {
  TokenAccounting acc;
  AccountTokens(
      {// b: one attempt judged no, the second accepted.
       Rec("b", Stage::kRollout1Done, "submitted", 100, 0, 10), Rec("b", Stage::kJudgeDone, "no", 20, 0, 1),
       Rec("b", Stage::kRollout1Done, "submitted", 100, 0, 10), Rec("b", Stage::kJudgeDone, "yes", 20),
       Rec("b", Stage::kIssueDone, "written", 30), Rec("b", Stage::kRollout2Done, "submitted", 40),
       Rec("b", Stage::kVerified, "accepted", 0),
       // c: rejected by verification; d: duplicate P1.
       Rec("c", Stage::kRollout1Done, "submitted", 50), Rec("c", Stage::kIssueDone, "written", 5),
       Rec("c", Stage::kRollout2Done, "submitted", 45), Rec("c", Stage::kVerified, "rejected", 0),
       Rec("d", Stage::kRollout1Done, "submitted", 70), Rec("d", Stage::kSkipped, "duplicate_p1", 0),
       // e: still running: not waste yet.
       Rec("e", Stage::kRollout1Done, "submitted", 999)},
      &acc);
  CHECK(acc.wasted["judged_no"] == 131);
  CHECK(acc.wasted["rejected"] == 100);
  CHECK(acc.wasted["skipped"] == 70);
  CHECK(acc.wasted_total == 301);
  CHECK(FormatTokenAccounting(acc).find("wasted     301 tokens") != std::string::npos);
}

TEST_CASE("resumed rollouts are counted and the answers of discarded turn logs are waste", "[status][tokens]") {
  TokenAccounting acc;
  JournalRecord a1 = Rec("a", Stage::kRollout1Done, "submitted", 300);
  a1.extra = journal::RolloutResult{true, "", 2, 0, 0};  // resumed inside: 2 calls replayed
  JournalRecord a2 = Rec("a", Stage::kRollout2Done, "submitted", 200);
  a2.extra = journal::RolloutResult{true, "", 0, 1, 220};  // its first turn log could not be replayed
  AccountTokens({a1, Rec("a", Stage::kIssueDone, "written", 10), a2, Rec("a", Stage::kVerified, "accepted", 0)}, &acc);
  CHECK(acc.rollout_replays == 1);
  CHECK(acc.replayed_calls == 2);
  CHECK(acc.rollout_restarts == 1);
  CHECK(acc.wasted["restarted"] == 220);
  CHECK(acc.wasted_total == 220);  // the accepted task's own tokens are not waste
  nlohmann::json j = StatusJsonOf(acc);
  CHECK(j["rollout_resume"]["rollout_replays"] == 1);
  CHECK(j["rollout_resume"]["replayed_calls"] == 2);
  CHECK(j["rollout_resume"]["rollout_restarts"] == 1);
  CHECK(j["wasted_tokens"]["by_reason"]["restarted"] == 220);
  CHECK(FormatTokenAccounting(acc).find(
            "resumed    1 rollouts inside (replayed 2 answered model calls), 1 started again") != std::string::npos);
  TokenAccounting none;
  CHECK(FormatTokenAccounting(none).find("resumed") == std::string::npos);
}

}  // namespace seragen::runview
