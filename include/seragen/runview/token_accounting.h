// Where a run's teacher tokens went: the prompt-cache hit rate per stage and
// the tokens spent on work that produced no accepted trajectory. Read from
// journal records only (works on a run in progress). Pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "seragen/journal/record.h"

namespace seragen::pipeline {

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

// Adds one shard's records (in journal order) to `acc`.
void AccountTokens(const std::vector<journal::JournalRecord>& records, TokenAccounting* acc);

// "prompt cache  rollout1 93.2% · …" and "wasted …" lines for `seragen status`.
std::string FormatTokenAccounting(const TokenAccounting& acc);
// Adds "prompt_cache", "wasted_tokens" and "rollout_resume" ({"rollout_replays",
// "replayed_calls", "rollout_restarts"}) to a status JSON object.
void AddTokenAccountingJson(const TokenAccounting& acc, nlohmann::ordered_json& j);

}  // namespace seragen::pipeline
