// `seragen status`: what a run has done so far, as a function of its folded
// state (run_state.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/journal/occupancy.h"
#include "seragen/journal/outcomes.h"
#include "seragen/runview/cost_ledger.h"
#include "seragen/runview/run_budget.h"
#include "seragen/runview/run_state.h"
#include "seragen/runview/status_breakdown.h"
#include "seragen/runview/test_agreement.h"
#include "seragen/runview/token_accounting.h"
#include "seragen/secrets/summary.h"

#include "seragen/callgraph/holdout.h"

namespace seragen::runview {

struct StatusReport {
  std::size_t planned = 0;        // tasks.jsonl
  callgraph::HoldoutSplit split;  // the plan's held-out evaluation split (eval.holdout)
  std::size_t started = 0;        // tasks with at least one record (a task in two shards once)
  std::size_t finished = 0;       // terminal (verified, skipped, failed non-retryable)
  // The exit-code classification of `seragen run` over the whole plan
  // (RunResultName): complete, incomplete or nothing_succeeded.
  std::string result;
  std::map<std::string, std::size_t> by_stage;       // latest stage of each started task
  std::map<journal::Verdict, std::size_t> verified;  // accepted / rejected / not_scorable
  std::map<journal::SkipReason, std::size_t> skipped;
  // Error class -> count (latest record), by family; a class of no known
  // family is counted with the model's, as it always was.
  std::map<journal::ErrorClass, std::size_t> infra_failures;
  std::map<journal::ErrorClass, std::size_t> model_failures;
  std::map<journal::ErrorClass, std::size_t> config_failures;
  // rollout exit status -> count; "autosubmitted:<status>" for rollouts that
  // submitted their diff after that limit (agent::OutcomeName)
  std::map<std::string, std::size_t> rollout_exits;
  std::size_t autosubmitted = 0;  // rollouts (1 and 2) that ended autosubmitted
  // Environment health: rollouts (1 and 2) recorded, and of those the ones
  // where a command failed to import the repository's own code.
  std::size_t rollouts = 0;
  std::size_t env_broken = 0;
  // Soft verification against seragen's own test runs (test_agreement.h).
  TestAgreementSummary test_agreement;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;
  std::int64_t model_calls = 0;
  double acceptance_rate = 0;   // accepted / verified
  double tasks_per_minute = 0;  // finished over the span of record timestamps
  double eta_minutes = -1;      // remaining at that rate; -1 unknown or no run is writing
  bool running = false;         // a process holds a shard's lock (ReadStatus; StatusOf leaves false)
  std::size_t shards = 0;
  std::size_t torn_tails = 0;  // journals that ended in a torn line (a crash)
  StatusBreakdown breakdown;   // per shard, category, repository (status_breakdown.h)
  CostLedger cost;             // total, per accepted row, per stage (cost_ledger.h)
  TokenAccounting tokens;      // cache hit rate per stage, wasted tokens (token_accounting.h)
  // budget.* of the run's saved config.yaml (the latest invocation's) and the
  // run-wide use they are checked against: started tasks, tokens, cost.
  BudgetLimits budget;
  BudgetUse budget_used;
  // Format -> the secret counts of its latest export, as the export wrote them
  // into the data directory; filled by the caller that reads them
  // (publish::ReadExportSecrets): status itself does not scan.
  std::map<std::string, secrets::SecretSummary> export_secrets;
  // The teacher endpoints' occupancy (endpoint_occupancy.h), filled by
  // ReadStatus from the shards' occupancy.json; unreadable files named.
  journal::OccupancyRecord occupancy;
  std::vector<std::string> occupancy_problems;
};

// A count map keyed by outcome values, keyed by their journal names instead
// (for text and JSON).
std::map<std::string, std::size_t> CountsByName(const std::map<journal::Verdict, std::size_t>& counts);
std::map<std::string, std::size_t> CountsByName(const std::map<journal::SkipReason, std::size_t>& counts);
std::map<std::string, std::size_t> CountsByName(const std::map<journal::ErrorClass, std::size_t>& counts);

// FoldRun and StatusOf; FoldRun's errors.
Result<StatusReport> ReadStatus(const std::string& run_dir);
// Prices, budget and category names come from the run's saved settings
// (none when it has none).
StatusReport StatusOf(const RunState& run);
std::string FormatStatus(const StatusReport& report);
std::string StatusJson(const StatusReport& report);

}  // namespace seragen::runview
