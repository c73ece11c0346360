// What the teacher endpoints cost (llm.pricing): the one price type of the
// program, and the one formula that prices tokens. Per-token prices apply to
// every endpoint of the run (they serve one model); a GPU-hour price is
// charged for each endpoint's wall time instead, and then tokens cost
// nothing on their own (runview/cost_ledger.h turns wall time into money).
// The two kinds are exclusive (the config loader refuses both).
#pragma once

#include <cstdint>

namespace seragen {

struct Pricing {
  double prompt_per_mtok = 0;      // USD per million prompt tokens (those not served from the cache)
  double completion_per_mtok = 0;  // USD per million completion tokens
  double cached_per_mtok = -1;     // USD per million cached prompt tokens; < 0: not set, the prompt price
  double gpu_hour_usd = 0;         // USD per GPU-hour of an endpoint's wall time
  std::int64_t gpus_per_endpoint = 1;

  bool per_token() const { return prompt_per_mtok > 0 || completion_per_mtok > 0 || cached_per_mtok > 0; }
  bool per_gpu_hour() const { return gpu_hour_usd > 0; }
  bool priced() const { return per_token() || per_gpu_hour(); }
  // The price of one million cached prompt tokens as charged.
  double cached_price() const { return cached_per_mtok >= 0 ? cached_per_mtok : prompt_per_mtok; }
};

// USD for these token counts under per-token prices (0 under a GPU-hour
// price). `cached` is the part of `prompt` served from the cache; counts are
// taken as they are (callers bound counts read from outside input).
double TokenCostUsd(const Pricing& pricing, std::int64_t prompt, std::int64_t cached, std::int64_t completion);

// USD for `gpu_hours` under a GPU-hour price (0 under per-token prices).
double GpuCostUsd(const Pricing& pricing, double gpu_hours);

}  // namespace seragen
