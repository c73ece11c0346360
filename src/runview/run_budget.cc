#include "seragen/runview/run_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "seragen/runview/cost_ledger.h"
#include "seragen/runview/run_state.h"

namespace seragen::runview {
namespace {

double Percent(double used, double limit) { return limit > 0 ? 100.0 * used / limit : 0; }

// Counts read from journals (another shard's is outside input): each taken
// as 0..kMaxBudgetCount, sums saturating there, so that no negative or huge
// number can lower a total or wrap it below a cap.
std::int64_t Bounded(std::int64_t v) { return std::clamp<std::int64_t>(v, 0, kMaxBudgetCount); }

std::int64_t SaturatingAdd(std::int64_t a, std::int64_t b) {
  return std::min(kMaxBudgetCount, Bounded(a) + Bounded(b));
}

double BoundedCost(double v) { return std::isfinite(v) && v > 0 ? std::min(v, 1e15) : 0; }

}  // namespace

BudgetUse& BudgetUse::operator+=(const BudgetUse& o) {
  tasks = SaturatingAdd(tasks, o.tasks);
  tokens = SaturatingAdd(tokens, o.tokens);
  cost_usd = BoundedCost(BoundedCost(cost_usd) + BoundedCost(o.cost_usd));
  return *this;
}

BudgetUse UseOf(const ShardState& shard, const PriceBook& prices) {
  const journal::TokenUsage tokens = shard.totals.tokens();
  journal::EndpointTokens by_endpoint;
  for (const auto& [stage, part] : shard.totals.endpoint_tokens_by_stage) journal::AddEndpointTokens(by_endpoint, part);
  return BudgetUse{static_cast<std::int64_t>(shard.tasks.tasks().size()),
                   SaturatingAdd(tokens.prompt_tokens, tokens.completion_tokens),
                   BoundedCost(TokensCostUsd(by_endpoint, prices))};
}

BudgetUse RunUse(const std::vector<ShardState>& shards, const PriceBook& prices) {
  BudgetUse use;
  for (const ShardState& s : shards) use += UseOf(s, prices);
  return use;
}

Result<BudgetUse> OtherShardsUse(const std::string& run_dir, int shard, const PriceBook& prices) {
  FoldOptions options;
  options.plan = false;
  options.settings = false;
  options.skip_shard = shard;
  SG_ASSIGN_OR_RETURN(RunState run, FoldRun(run_dir, options));
  return RunUse(run.shards, prices);
}

std::string BudgetExhausted(const BudgetUse& used, const BudgetLimits& limits) {
  if (limits.max_tasks > 0 && used.tasks >= limits.max_tasks) {
    return fmt::format("budget.max_tasks reached (run-wide: {} of {} tasks started)", used.tasks, limits.max_tasks);
  }
  if (limits.max_tokens > 0 && used.tokens >= limits.max_tokens) {
    return fmt::format("budget.max_tokens reached (run-wide: {} of {} tokens)", used.tokens, limits.max_tokens);
  }
  if (limits.max_cost_usd > 0 && used.cost_usd >= limits.max_cost_usd) {
    return fmt::format("budget.max_cost_usd reached (run-wide: ${:.2f} of ${:.2f})", used.cost_usd,
                       limits.max_cost_usd);
  }
  return "";
}

std::string FormatBudgetUse(const BudgetUse& used, const BudgetLimits& limits) {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (limits.max_tasks > 0) {
    add(fmt::format("tasks {}/{} ({:.0f}%)", used.tasks, limits.max_tasks,
                    Percent(static_cast<double>(used.tasks), static_cast<double>(limits.max_tasks))));
  }
  if (limits.max_tokens > 0) {
    add(fmt::format("tokens {}/{} ({:.0f}%)", used.tokens, limits.max_tokens,
                    Percent(static_cast<double>(used.tokens), static_cast<double>(limits.max_tokens))));
  }
  if (limits.max_cost_usd > 0) {
    add(fmt::format("cost ${:.2f}/${:.2f} ({:.0f}%)", used.cost_usd, limits.max_cost_usd,
                    Percent(used.cost_usd, limits.max_cost_usd)));
  }
  return out;
}

}  // namespace seragen::runview
