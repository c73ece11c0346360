#include "seragen/runview/cost_ledger.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "seragen/config/prices.h"
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

// What the endpoints priced by the GPU-hour cost, from the shards'
// occupancy records; hours < 0 when none of them recorded wall time.
struct GpuCharge {
  double hours = -1;
  double usd = 0;
};

GpuCharge ChargeGpuHours(const RunState& run, const PriceBook& prices) {
  GpuCharge charge;
  journal::OccupancyRecord occupancy = ReadRunOccupancy(run.run_dir, nullptr);
  for (const journal::EndpointOccupancyRecord& e : occupancy.endpoints) {
    const Pricing& p = prices.For(e.endpoint);
    const double seconds = WallSeconds(e.tracked_s);
    if (!p.per_gpu_hour() || seconds <= 0) continue;
    const double hours = seconds * static_cast<double>(std::max<std::int64_t>(1, p.gpus_per_endpoint)) / 3600.0;
    charge.hours = std::max(0.0, charge.hours) + hours;
    charge.usd += GpuCostUsd(p, hours);
  }
  return charge;
}

// The prompt + completion tokens of a stage that endpoints priced by the
// GPU-hour answered.
std::int64_t GpuPricedTokens(const StageCost& c, const PriceBook& prices) {
  std::int64_t n = 0;
  for (const auto& [endpoint, usage] : c.by_endpoint) {
    if (prices.For(endpoint).per_gpu_hour()) n += Spent(usage);
  }
  return n;
}

// A GPU-hour cost shared by the stages in proportion to the tokens the
// endpoints so priced answered.
void ShareGpuCost(CostLedger& ledger, double usd) {
  std::int64_t all = 0;
  for (const auto& [stage, c] : ledger.by_stage) all += GpuPricedTokens(c, ledger.prices);
  for (auto& [stage, c] : ledger.by_stage) {
    if (all > 0) c.usd += usd * static_cast<double>(GpuPricedTokens(c, ledger.prices)) / static_cast<double>(all);
  }
}

// Some endpoint has prices other than llm.pricing.
bool OwnPrices(const PriceBook& prices) {
  return std::any_of(prices.endpoints.begin(), prices.endpoints.end(),
                     [&prices](const auto& e) { return !(e.second == prices.run); });
}

}  // namespace

double UsageCostUsd(const journal::TokenUsage& usage, const Pricing& pricing) {
  const std::int64_t prompt = Count(usage.prompt_tokens);
  return TokenCostUsd(pricing, prompt, std::min(prompt, Count(usage.cached_prompt_tokens)),
                      Count(usage.completion_tokens));
}

double TokensCostUsd(const journal::EndpointTokens& tokens, const PriceBook& prices) {
  double usd = 0;
  for (const auto& [endpoint, usage] : tokens) usd += UsageCostUsd(usage, prices.For(endpoint));
  return usd;
}

PriceBook RunPrices(const RunState& run) {
  return run.settings.saved ? config::PricesOf(run.settings.saved->llm) : PriceBook{};
}

CostLedger CostRun(const RunState& run, std::size_t accepted) {
  CostLedger ledger;
  ledger.prices = RunPrices(run);
  ledger.accepted = accepted;
  for (const ShardState& shard : run.shards) {
    for (const auto& [stage, by_endpoint] : shard.totals.endpoint_tokens_by_stage) {
      journal::TokenUsage usage;
      for (const auto& [endpoint, u] : by_endpoint) usage += u;
      if (Spent(usage) <= 0) continue;
      StageCost& c = ledger.by_stage[stage];
      c.usage += usage;
      journal::AddEndpointTokens(c.by_endpoint, by_endpoint);
    }
  }
  ledger.known = ledger.prices.priced();
  for (auto& [stage, c] : ledger.by_stage) c.usd = TokensCostUsd(c.by_endpoint, ledger.prices);
  if (ledger.prices.per_gpu_hour()) {
    const GpuCharge gpu = ChargeGpuHours(run, ledger.prices);
    ledger.known = gpu.hours >= 0;
    ledger.gpu_hours = std::max(0.0, gpu.hours);
    ShareGpuCost(ledger, gpu.usd);
    ledger.total_usd = gpu.usd;
  }
  for (const auto& [stage, c] : ledger.by_stage) ledger.total_usd += TokensCostUsd(c.by_endpoint, ledger.prices);
  if (ledger.known && accepted > 0) ledger.per_accepted_usd = ledger.total_usd / static_cast<double>(accepted);
  return ledger;
}

std::vector<CostLine> CostLines(const CostLedger& ledger) {
  std::vector<CostLine> lines;
  if (!ledger.known) return lines;
  lines.push_back({"total", Usd(ledger.total_usd)});
  if (ledger.prices.per_gpu_hour()) lines.push_back({"GPU-hours", fmt::format("{:.2f}", ledger.gpu_hours)});
  if (ledger.accepted > 0) lines.push_back({"per accepted row", Usd(ledger.per_accepted_usd)});
  for (const auto& [stage, c] : ledger.by_stage) lines.push_back({std::string(journal::StageName(stage)), Usd(c.usd)});
  return lines;
}

std::string CostBasis(const CostLedger& ledger) {
  const PriceBook& p = ledger.prices;
  if (!p.priced()) return "";
  const bool own = OwnPrices(p);
  if (!ledger.known) {
    return own ? "unknown: an endpoint has a GPU-hour price (gpu_hour_usd), but no shard recorded its wall time"
               : "unknown: llm.pricing.gpu_hour_usd is set, but no shard recorded its endpoints' wall time";
  }
  if (p.per_token() && p.per_gpu_hour()) {
    return "per-token prices and a GPU-hour price (llm.pricing and llm.endpoints[].pricing) over each endpoint's "
           "tokens or wall time";
  }
  if (p.per_gpu_hour()) {
    return own ? "a GPU-hour price (llm.pricing and llm.endpoints[].pricing) over the endpoints' wall time"
               : "a GPU-hour price (llm.pricing.gpu_hour_usd) over the endpoints' wall time";
  }
  return own ? "per-token prices (llm.pricing and llm.endpoints[].pricing) over each endpoint's tokens"
             : "per-token prices (llm.pricing) over the journals' tokens";
}

std::string FormatCost(const CostLedger& ledger) {
  if (!ledger.prices.priced()) return "";
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
  const PriceBook& p = ledger.prices;
  nlohmann::ordered_json j = {{"basis", !p.per_gpu_hour() ? "tokens"
                                        : p.per_token()   ? "mixed"
                                                          : "gpu_hours"},
                              {"total_usd", ledger.total_usd},
                              {"accepted", ledger.accepted}};
  j["per_accepted_usd"] = ledger.accepted > 0 ? nlohmann::ordered_json(ledger.per_accepted_usd) : nullptr;
  if (p.per_gpu_hour()) j["gpu_hours"] = ledger.gpu_hours;
  nlohmann::ordered_json stages = nlohmann::ordered_json::object();
  for (const auto& [stage, c] : ledger.by_stage) stages[std::string(journal::StageName(stage))] = c.usd;
  j["by_stage"] = stages;
  return j.dump();
}

}  // namespace seragen::runview
