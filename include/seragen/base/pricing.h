// What the teacher endpoints cost: the one price type of the program
// (Pricing), the price of each endpoint of a run (PriceBook), and the one
// formula that prices tokens. An endpoint is priced per token or by the
// GPU-hour of its wall time, never both (the config loader refuses both);
// under a GPU-hour price its tokens cost nothing on their own
// (runview/cost_ledger.h turns wall time into money).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

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
  friend bool operator==(const Pricing&, const Pricing&) = default;
};

// The prices of a run's endpoints, by endpoint name (endpoint_name.h): each
// configured endpoint's (its llm.endpoints[].pricing as the config loader
// resolved it against llm.pricing, else llm.pricing), and llm.pricing for
// tokens no named endpoint answered (journals written before records named
// endpoints).
struct PriceBook {
  Pricing run;                               // llm.pricing
  std::map<std::string, Pricing> endpoints;  // every configured endpoint (none: all priced with `run`)

  // The price of the endpoint that answered: its own, else llm.pricing (also
  // for "" and any name the book does not hold). `endpoint` may be a base
  // URL: it is named as EndpointName names it first.
  const Pricing& For(std::string_view endpoint) const;
  // Some endpoint (`run` when the book names none) is priced per token, or
  // by the GPU-hour.
  bool per_token() const;
  bool per_gpu_hour() const;
  bool priced() const { return per_token() || per_gpu_hour(); }
};

// USD for these token counts under per-token prices (0 under a GPU-hour
// price). `cached` is the part of `prompt` served from the cache; counts are
// taken as they are (callers bound counts read from outside input).
double TokenCostUsd(const Pricing& pricing, std::int64_t prompt, std::int64_t cached, std::int64_t completion);

// USD for `gpu_hours` under a GPU-hour price (0 under per-token prices).
double GpuCostUsd(const Pricing& pricing, double gpu_hours);

}  // namespace seragen
