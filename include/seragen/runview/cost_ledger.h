// The cost ledger: what a run cost, derived only from what the run recorded
// and the prices of its saved config (llm.pricing, base/pricing.h). It is the
// one place usage becomes money: `status` (text and `--json` "cost"), the
// report's Tokens table and the dataset card all show CostLines of one
// ledger, and the run-wide budget (run_budget.h) prices usage with
// UsageCostUsd.
//
// - Per-token prices: each shard's recorded tokens by the stage of the
//   record that carries them (ShardTotals::tokens_by_stage), cached prompt
//   tokens at their own price when set.
// - A GPU-hour price: every endpoint's wall time in the shards' occupancy
//   records (RUN_DIR/shard-K/occupancy.json, each shard's latest invocation)
//   times llm.pricing.gpus_per_endpoint; a stage's share is its share of the
//   recorded prompt + completion tokens.
// - Per accepted row: the total over the accepted trajectories (verified and
//   accepted tasks, each once), so it carries the cost of everything that was
//   not accepted.
// Without a price, or with a GPU-hour price and no wall time recorded, the
// ledger has no figures (`known` false) rather than a made-up $0.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "seragen/base/pricing.h"
#include "seragen/journal/record.h"

namespace seragen::runview {

struct RunState;

struct StageCost {
  journal::TokenUsage usage;  // the tokens of the stage's records, every shard
  double usd = 0;
};

struct CostLedger {
  Pricing pricing;     // the run's saved llm.pricing (none without a saved config)
  bool known = false;  // priced, and (GPU-hour) some endpoint wall time recorded
  double total_usd = 0;
  std::size_t accepted = 0;
  double per_accepted_usd = 0;                   // total / accepted; 0 when none accepted
  double gpu_hours = 0;                          // GPU-hour pricing: wall time x GPUs per endpoint
  std::map<journal::Stage, StageCost> by_stage;  // stages whose records carry tokens
};

// USD of recorded usage under per-token prices (0 under a GPU-hour price).
// Counts are outside input: each is taken as 0..2^53 first.
double UsageCostUsd(const journal::TokenUsage& usage, const Pricing& pricing);

// The prices in the run's saved config; none when it has none.
Pricing RunPricing(const RunState& run);

// The one function that costs a run: every shard's recorded usage (and, for
// a GPU-hour price, the shards' occupancy records under run.run_dir) priced
// with RunPricing; `accepted` trajectories share the total.
CostLedger CostRun(const RunState& run, std::size_t accepted);

// The ledger's figures as label and value, in the order every view shows
// them: "total" "$1.23", "GPU-hours" "4.00" (GPU-hour pricing), "per
// accepted row" "$0.41" (when any), then one per stage, "rollout1_done"
// "$0.80". Money to the cent. Empty when the ledger is not known.
struct CostLine {
  std::string label;
  std::string value;
};
std::vector<CostLine> CostLines(const CostLedger& ledger);

// Where the figures come from, for every view: "per-token prices
// (llm.pricing) over the journals' tokens", "a GPU-hour price
// (llm.pricing.gpu_hour_usd) over the endpoints' wall time", or, when the
// ledger is not known, why ("unknown: ..."). "" without a price.
std::string CostBasis(const CostLedger& ledger);

// The "cost" lines of `seragen status`; "" without a price, a note when a
// GPU-hour price has no wall time to charge.
std::string FormatCost(const CostLedger& ledger);

// `status --json`'s "cost": null when not known, else {"basis": "tokens" |
// "gpu_hours", "total_usd", "accepted", "per_accepted_usd" (null when none
// accepted), "gpu_hours" (GPU-hour basis only), "by_stage": {stage: usd}}.
std::string CostJson(const CostLedger& ledger);

}  // namespace seragen::runview
