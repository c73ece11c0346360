// Run-wide budgets (budget.*): what the whole run has used, over every
// invocation and every shard, read from the shard journals.
//
// A shard counts its own journal (as folded at start) plus what this process
// dispatched and spent since; the other shards' use comes from their
// journals, read without their locks (`OtherShardsUse`), so shards share one
// cap without talking to each other. A requeued or resumed shard starts from
// its journal, so it sees what it spent before. What a shard has in flight is
// not in its journal yet: concurrent shards can overshoot a cap by the work
// the others have in flight (docs/RUN.md, "Budgets").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "seragen/base/pricing.h"
#include "seragen/base/result.h"

namespace seragen::runview {

// The largest count a budget total holds (2^53, exact as a double).
inline constexpr std::int64_t kMaxBudgetCount = std::int64_t{1} << 53;

// Totals: every count 0..kMaxBudgetCount and += saturates there, whatever a
// journal says (another shard's journal is outside input to this one).
struct BudgetUse {
  std::int64_t tasks = 0;   // tasks started: with a journal record, or dispatched by this process
  std::int64_t tokens = 0;  // prompt + completion
  double cost_usd = 0;      // the tokens priced as the cost ledger does (cost_ledger.h TokensCostUsd)

  BudgetUse& operator+=(const BudgetUse& o);
};

struct ShardState;

// The use recorded in one folded shard journal: its tasks, its tokens (every
// record's, ShardTotals) and their cost, each endpoint's tokens at its own
// per-token price. The one budget calculation: the run
// side adds it up over the shards for its checks, `status` for its "budget"
// line, so the two cannot disagree.
BudgetUse UseOf(const ShardState& shard, const PriceBook& prices);

// UseOf summed over every shard of a folded run.
BudgetUse RunUse(const std::vector<ShardState>& shards, const PriceBook& prices);

// The use recorded in every shard journal of RUN_DIR except shard `shard`'s
// (FoldRun without the plan and the settings). A journal that does not read
// is an error naming it: the caller must not go on as if it were empty.
Result<BudgetUse> OtherShardsUse(const std::string& run_dir, int shard, const PriceBook& prices);

struct BudgetLimits {
  std::int64_t max_tasks = 0;  // 0 = no limit
  std::int64_t max_tokens = 0;
  double max_cost_usd = 0;
  bool any() const { return max_tasks > 0 || max_tokens > 0 || max_cost_usd > 0; }
};

// Empty when `used` is within every limit; else which budget is used up, as
// "budget.max_tasks reached (run-wide: 4 of 4 tasks started)".
std::string BudgetExhausted(const BudgetUse& used, const BudgetLimits& limits);

// "tasks 4/4 (100%), tokens 51234/100000 (51%), cost $0.12/$1.00 (12%)" for
// the limits that are set; empty when none is.
std::string FormatBudgetUse(const BudgetUse& used, const BudgetLimits& limits);

}  // namespace seragen::runview
