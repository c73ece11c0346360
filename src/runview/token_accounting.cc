#include "seragen/runview/token_accounting.h"

#include <fmt/format.h>

#include "seragen/journal/outcomes.h"

namespace seragen::runview {
namespace {

using journal::Stage;

std::int64_t Spent(const journal::TokenUsage& t) { return t.prompt_tokens + t.completion_tokens; }

const char* CacheStage(Stage s) {
  switch (s) {
    case Stage::kRollout1Done: return "rollout1";
    case Stage::kJudgeDone: return "judge";
    case Stage::kIssueDone: return "issue";
    case Stage::kRollout2Done: return "rollout2";
    default: return nullptr;
  }
}

}  // namespace

void TokenAccountant::Waste(const std::string& why, std::int64_t tokens) {
  if (tokens <= 0) return;
  acc_.wasted[why] += tokens;
  acc_.wasted_total += tokens;
}

void TokenAccountant::Add(const journal::JournalRecord& r) {
  if (const journal::RolloutResult* rr = r.rollout()) {
    acc_.rollout_replays += rr->replayed_calls > 0 ? 1 : 0;
    acc_.replayed_calls += static_cast<std::int64_t>(rr->replayed_calls);
    acc_.rollout_restarts += static_cast<std::int64_t>(rr->restarts);
    Waste("restarted", static_cast<std::int64_t>(rr->discarded_tokens));
  }
  Open& o = open_[r.task_id];
  o.task += Spent(r.tokens);
  if (r.stage == Stage::kRollout1Done) o.attempt = 0;
  o.attempt += Spent(r.tokens);
  if (journal::IsJudgeRejection(r)) {
    Waste("judged_no", o.attempt);
    o.task -= o.attempt;
    o.attempt = 0;
  }
  // Waste is named by the outcome that settled it: skipped, rejected,
  // not_scorable, failed (a retryable failure settles nothing).
  const journal::Outcome outcome = journal::OutcomeOf(r.stage, r.status);
  std::string why;
  if (outcome != journal::Outcome::kRunning && outcome != journal::Outcome::kAccepted &&
      (outcome != journal::Outcome::kFailed || (r.error && !r.error->retryable))) {
    why = std::string(journal::OutcomeName(outcome));
  }
  if (!why.empty()) Waste(why, o.task);
  // Settled (accepted, or counted as waste above): a later record of the task starts from nothing.
  if (!why.empty() || journal::IsAccepted(r)) open_.erase(r.task_id);
}

void AddStageCache(const std::map<journal::Stage, journal::TokenUsage>& by_stage, TokenAccounting* acc) {
  for (const auto& [stage, usage] : by_stage) {
    const char* name = CacheStage(stage);
    if (name == nullptr) continue;
    StageCache& c = acc->cache_by_stage[name];
    c.prompt_tokens += usage.prompt_tokens;
    c.cached_tokens += usage.cached_prompt_tokens;
  }
}

void AddAccounting(const TokenAccounting& add, TokenAccounting* sum) {
  for (const auto& [stage, c] : add.cache_by_stage) {
    sum->cache_by_stage[stage].prompt_tokens += c.prompt_tokens;
    sum->cache_by_stage[stage].cached_tokens += c.cached_tokens;
  }
  for (const auto& [why, n] : add.wasted) sum->wasted[why] += n;
  sum->wasted_total += add.wasted_total;
  sum->rollout_replays += add.rollout_replays;
  sum->replayed_calls += add.replayed_calls;
  sum->rollout_restarts += add.rollout_restarts;
}

std::string FormatTokenAccounting(const TokenAccounting& acc) {
  std::string out;
  if (!acc.cache_by_stage.empty()) {
    out += "prompt cache";
    for (const char* s : {"rollout1", "judge", "issue", "rollout2"}) {
      auto it = acc.cache_by_stage.find(s);
      if (it == acc.cache_by_stage.end()) continue;
      out += fmt::format(" {} {:.1f}%", s, 100.0 * it->second.HitRate());
    }
    out += " (cached / prompt tokens)\n";
  }
  if (acc.wasted_total > 0) {
    out += fmt::format("wasted     {} tokens without an accepted trajectory:", acc.wasted_total);
    for (const auto& [why, n] : acc.wasted) out += fmt::format(" {} {}", why, n);
    out += "\n";
  }
  if (acc.rollout_replays > 0 || acc.rollout_restarts > 0) {
    out += fmt::format("resumed    {} rollouts inside (replayed {} answered model calls), {} started again\n",
                       acc.rollout_replays, acc.replayed_calls, acc.rollout_restarts);
  }
  return out;
}

}  // namespace seragen::runview
