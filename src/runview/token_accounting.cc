#include "seragen/pipeline/token_accounting.h"

#include <fmt/format.h>

namespace seragen::pipeline {
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

// Tokens of one task not yet counted as waste.
struct Open {
  std::int64_t task = 0;     // every record's tokens
  std::int64_t attempt = 0;  // the current rollout-1 attempt's (rollout + judge)
};

void Waste(TokenAccounting* acc, const std::string& why, std::int64_t tokens) {
  if (tokens <= 0) return;
  acc->wasted[why] += tokens;
  acc->wasted_total += tokens;
}

}  // namespace

void AccountTokens(const std::vector<journal::JournalRecord>& records, TokenAccounting* acc) {
  std::map<std::string, Open> open;
  for (const journal::JournalRecord& r : records) {
    if (const char* stage = CacheStage(r.stage)) {
      StageCache& c = acc->cache_by_stage[stage];
      c.prompt_tokens += r.tokens.prompt_tokens;
      c.cached_tokens += r.tokens.cached_prompt_tokens;
    }
    if (const journal::RolloutResult* rr = r.rollout()) {
      acc->rollout_replays += rr->replayed_calls > 0 ? 1 : 0;
      acc->replayed_calls += static_cast<std::int64_t>(rr->replayed_calls);
      acc->rollout_restarts += static_cast<std::int64_t>(rr->restarts);
      Waste(acc, "restarted", static_cast<std::int64_t>(rr->discarded_tokens));
    }
    Open& o = open[r.task_id];
    o.task += Spent(r.tokens);
    if (r.stage == Stage::kRollout1Done) o.attempt = 0;
    o.attempt += Spent(r.tokens);
    if (r.stage == Stage::kJudgeDone && r.status != "yes") {
      Waste(acc, "judged_no", o.attempt);
      o.task -= o.attempt;
      o.attempt = 0;
    }
    std::string why;
    if (r.stage == Stage::kSkipped) why = "skipped";
    if (r.stage == Stage::kVerified && r.status != "accepted") why = r.status;
    if (r.stage == Stage::kFailed && r.error && !r.error->retryable) why = "failed";
    if (!why.empty()) {
      Waste(acc, why, o.task);
      o = Open{};
    }
  }
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

void AddTokenAccountingJson(const TokenAccounting& acc, nlohmann::ordered_json& j) {
  nlohmann::ordered_json cache = nlohmann::ordered_json::object();
  for (const auto& [stage, c] : acc.cache_by_stage) {
    cache[stage] = {{"prompt_tokens", c.prompt_tokens}, {"cached_tokens", c.cached_tokens}, {"hit_rate", c.HitRate()}};
  }
  j["prompt_cache"] = cache;
  nlohmann::ordered_json wasted = nlohmann::ordered_json::object();
  for (const auto& [why, n] : acc.wasted) wasted[why] = n;
  j["wasted_tokens"] = {{"total", acc.wasted_total}, {"by_reason", wasted}};
  j["rollout_resume"] = {{"rollout_replays", acc.rollout_replays},
                         {"replayed_calls", acc.replayed_calls},
                         {"rollout_restarts", acc.rollout_restarts}};
}

}  // namespace seragen::pipeline
