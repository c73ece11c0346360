// Where a run's teacher tokens went: the prompt-cache hit rate per stage and
// the tokens spent on work that produced no accepted trajectory. Read from
// journal records only (works on a run in progress), as the fold applies
// them (shard_fold.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "seragen/journal/record.h"

namespace seragen::runview {

struct StageCache {
  std::int64_t prompt_tokens = 0;
  std::int64_t cached_tokens = 0;  // as the server reported them (0 when it does not)
  double HitRate() const {
    return prompt_tokens > 0 ? static_cast<double>(cached_tokens) / static_cast<double>(prompt_tokens) : 0;
  }
};

struct TokenAccounting {
  // "rollout1", "judge", "issue", "rollout2": the records of finished stages.
  std::map<std::string, StageCache> cache_by_stage;
  // Prompt + completion tokens of work that ended without an accepted
  // trajectory, by why: judged_no (rejected rollout-1 attempts and their
  // judge calls), skipped (empty/duplicate P1, judge_no, ...), rejected and
  // not_scorable (verification), failed (a final model failure), restarted
  // (answers of turn logs that could not be replayed after a kill: counted
  // when the rollout's done record is written; a rollout cut short before
  // its turns were journaled leaves nothing to count).
  std::map<std::string, std::int64_t> wasted;
  std::int64_t wasted_total = 0;
  // Resuming inside rollouts (from the done records' extra): rollouts that
  // replayed answered calls from their turn log, those calls, and rollouts
  // started again from scratch because replay was impossible.
  std::int64_t rollout_replays = 0;
  std::int64_t replayed_calls = 0;
  std::int64_t rollout_restarts = 0;
};

// Accounts one shard's records, added one at a time in journal order.
class TokenAccountant {
 public:
  void Add(const journal::JournalRecord& record);
  TokenAccounting Result() && { return std::move(acc_); }

 private:
  // Tokens of one task not yet counted as waste.
  struct Open {
    std::int64_t task = 0;     // every record's tokens
    std::int64_t attempt = 0;  // the current rollout-1 attempt's (rollout + judge)
  };
  void Waste(const std::string& why, std::int64_t tokens);

  TokenAccounting acc_;
  std::unordered_map<std::string, Open> open_;
};

// Fills `acc->cache_by_stage` from a shard's usage by stage (ShardTotals).
void AddStageCache(const std::map<journal::Stage, journal::TokenUsage>& by_stage, TokenAccounting* acc);

// Adds another shard's accounting to `sum`.
void AddAccounting(const TokenAccounting& add, TokenAccounting* sum);

// "prompt cache  rollout1 93.2% · …" and "wasted …" lines for `seragen status`.
std::string FormatTokenAccounting(const TokenAccounting& acc);

}  // namespace seragen::runview
