#include "seragen/runview/cost_ledger.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "seragen/runview/endpoint_occupancy.h"
#include "seragen/runview/run_budget.h"
#include "seragen/runview/run_state.h"

namespace seragen::runview {
namespace {

std::int64_t Count(std::int64_t v) { return std::clamp<std::int64_t>(v, 0, kMaxBudgetCount); }

// Seconds read from an occupancy file (outside input): finite, 0..10^9.
double WallSeconds(double s) { return std::isfinite(s) ? std::clamp(s, 0.0, 1e9) : 0; }

std::int64_t Spent(const journal::TokenUsage& u) { return Count(u.prompt_tokens) + Count(u.completion_tokens); }

std::string Usd(double usd) { return fmt::format("${:.2f}", usd); }

// The endpoints' GPU-hours in the shards' occupancy records; < 0 when no
// shard recorded any wall time.
double GpuHours(const RunState& run, const Pricing& pricing) {
  journal::OccupancyRecord occupancy = ReadRunOccupancy(run.run_dir, nullptr);
  double seconds = 0;
  for (const journal::EndpointOccupancyRecord& e : occupancy.endpoints) seconds += WallSeconds(e.tracked_s);
  if (seconds <= 0) return -1;
  return seconds * static_cast<double>(std::max<std::int64_t>(1, pricing.gpus_per_endpoint)) / 3600.0;
}

// A GPU-hour total shared by the stages in proportion to their tokens.
void ShareByTokens(CostLedger& ledger) {
  std::int64_t all = 0;
  for (const auto& [stage, c] : ledger.by_stage) all += Spent(c.usage);
  for (auto& [stage, c] : ledger.by_stage) {
    c.usd = all > 0 ? ledger.total_usd * static_cast<double>(Spent(c.usage)) / static_cast<double>(all) : 0;
  }
}

}  // namespace

double UsageCostUsd(const journal::TokenUsage& usage, const Pricing& pricing) {
  const std::int64_t prompt = Count(usage.prompt_tokens);
  return TokenCostUsd(pricing, prompt, std::min(prompt, Count(usage.cached_prompt_tokens)),
                      Count(usage.completion_tokens));
}

Pricing RunPricing(const RunState& run) { return run.settings.saved ? run.settings.saved->llm.pricing : Pricing{}; }

CostLedger CostRun(const RunState& run, std::size_t accepted) {
  CostLedger ledger;
  ledger.pricing = RunPricing(run);
  ledger.accepted = accepted;
  for (const ShardState& shard : run.shards) {
    for (const auto& [stage, usage] : shard.totals.tokens_by_stage) {
      if (Spent(usage) > 0) ledger.by_stage[stage].usage += usage;
    }
  }
  if (ledger.pricing.per_token()) {
    ledger.known = true;
    for (auto& [stage, c] : ledger.by_stage) {
      c.usd = UsageCostUsd(c.usage, ledger.pricing);
      ledger.total_usd += c.usd;
    }
  } else if (ledger.pricing.per_gpu_hour()) {
    const double hours = GpuHours(run, ledger.pricing);
    ledger.known = hours >= 0;
    ledger.gpu_hours = std::max(0.0, hours);
    ledger.total_usd = GpuCostUsd(ledger.pricing, ledger.gpu_hours);
    ShareByTokens(ledger);
  }
  if (ledger.known && accepted > 0) ledger.per_accepted_usd = ledger.total_usd / static_cast<double>(accepted);
  return ledger;
}

std::vector<CostLine> CostLines(const CostLedger& ledger) {
  std::vector<CostLine> lines;
  if (!ledger.known) return lines;
  lines.push_back({"total", Usd(ledger.total_usd)});
  if (ledger.pricing.per_gpu_hour()) lines.push_back({"GPU-hours", fmt::format("{:.2f}", ledger.gpu_hours)});
  if (ledger.accepted > 0) lines.push_back({"per accepted row", Usd(ledger.per_accepted_usd)});
  for (const auto& [stage, c] : ledger.by_stage) lines.push_back({std::string(journal::StageName(stage)), Usd(c.usd)});
  return lines;
}

std::string CostBasis(const CostLedger& ledger) {
  if (!ledger.pricing.priced()) return "";
  if (!ledger.known) return "unknown: llm.pricing.gpu_hour_usd is set, but no shard recorded its endpoints' wall time";
  return ledger.pricing.per_gpu_hour() ? "a GPU-hour price (llm.pricing.gpu_hour_usd) over the endpoints' wall time"
                                       : "per-token prices (llm.pricing) over the journals' tokens";
}

std::string FormatCost(const CostLedger& ledger) {
  if (!ledger.pricing.priced()) return "";
  std::string out = "cost      ";
  const char* sep = " ";
  for (const CostLine& line : CostLines(ledger)) {
    out += fmt::format("{}{} {}", sep, line.label, line.value);
    sep = ", ";
  }
  return out + (ledger.known ? " (" + CostBasis(ledger) + ")\n" : " " + CostBasis(ledger) + "\n");
}

std::string CostJson(const CostLedger& ledger) {
  if (!ledger.known) return "null";
  nlohmann::ordered_json j = {{"basis", ledger.pricing.per_gpu_hour() ? "gpu_hours" : "tokens"},
                              {"total_usd", ledger.total_usd},
                              {"accepted", ledger.accepted}};
  j["per_accepted_usd"] = ledger.accepted > 0 ? nlohmann::ordered_json(ledger.per_accepted_usd) : nullptr;
  if (ledger.pricing.per_gpu_hour()) j["gpu_hours"] = ledger.gpu_hours;
  nlohmann::ordered_json stages = nlohmann::ordered_json::object();
  for (const auto& [stage, c] : ledger.by_stage) stages[std::string(journal::StageName(stage))] = c.usd;
  j["by_stage"] = stages;
  return j.dump();
}

}  // namespace seragen::runview
