// The cost ledger: what a run cost, derived only from what the run recorded
// and the prices of its saved config (config/prices.h: llm.pricing and each
// endpoint's llm.endpoints[].pricing). It is the one place usage becomes
// money: `status` (text and `--json` "cost"), the report's Tokens table and
// the dataset card all show CostLines of one ledger, and the run-wide budget
// (run_budget.h) prices usage with TokensCostUsd.
//
// - Per-token prices: each shard's recorded tokens by the stage of the
//   record that carries them and by the endpoint that answered them
//   (ShardTotals::endpoint_tokens_by_stage), each endpoint's at its own
//   price, cached prompt tokens at their own price when set. Tokens of no
//   named endpoint (journals written before records named endpoints) are
//   priced with llm.pricing.
// - A GPU-hour price: the wall time of each endpoint so priced in the
//   shards' occupancy records (RUN_DIR/shard-K/occupancy.json, each shard's
//   latest invocation) times its gpus_per_endpoint; a stage's share is its
//   share of the prompt + completion tokens those endpoints answered.
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
  journal::TokenUsage usage;            // the tokens of the stage's records, every shard
  journal::EndpointTokens by_endpoint;  // the same by answering endpoint ("": none named)
  double usd = 0;
};

struct CostLedger {
  PriceBook prices;    // of the run's saved config (none without one)
  bool known = false;  // priced, and (GPU-hour) some endpoint wall time recorded
  double total_usd = 0;
  std::size_t accepted = 0;
  double per_accepted_usd = 0;                   // total / accepted; 0 when none accepted
  double gpu_hours = 0;                          // GPU-hour prices: wall time x GPUs per endpoint
  std::map<journal::Stage, StageCost> by_stage;  // stages whose records carry tokens
};

// USD of recorded usage under per-token prices (0 under a GPU-hour price).
// Counts are outside input: each is taken as 0..2^53 first.
double UsageCostUsd(const journal::TokenUsage& usage, const Pricing& pricing);

// USD of each endpoint's tokens at that endpoint's per-token price
// (UsageCostUsd with prices.For(endpoint)): what the budgets and the
// scheduler's meter charge.
double TokensCostUsd(const journal::EndpointTokens& tokens, const PriceBook& prices);

// The prices of the run's saved config; none when it has none.
PriceBook RunPrices(const RunState& run);

// The one function that costs a run: every shard's recorded usage (and, for
// GPU-hour prices, the shards' occupancy records under run.run_dir) priced
// with RunPrices; `accepted` trajectories share the total.
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
// (llm.pricing.gpu_hour_usd) over the endpoints' wall time", "per-token
// prices and a GPU-hour price (...)" when endpoints are priced both ways,
// "... and llm.endpoints[].pricing" when some endpoint has prices of its
// own, or, when the ledger is not known, why ("unknown: ..."). "" without a
// price.
std::string CostBasis(const CostLedger& ledger);

// The "cost" lines of `seragen status`; "" without a price, a note when a
// GPU-hour price has no wall time to charge.
std::string FormatCost(const CostLedger& ledger);

// `status --json`'s "cost": null when not known, else {"basis": "tokens" |
// "gpu_hours" | "mixed" (endpoints priced both ways), "total_usd",
// "accepted", "per_accepted_usd" (null when none accepted), "gpu_hours"
// (with a GPU-hour price only), "by_stage": {stage: usd}}.
std::string CostJson(const CostLedger& ledger);

}  // namespace seragen::runview
