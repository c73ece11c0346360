#include "seragen/base/pricing.h"

#include <algorithm>

#include "seragen/base/endpoint_name.h"

namespace seragen {

double TokenCostUsd(const Pricing& p, std::int64_t prompt, std::int64_t cached, std::int64_t completion) {
  if (!p.per_token()) return 0;
  return (static_cast<double>(prompt - cached) * p.prompt_per_mtok + static_cast<double>(cached) * p.cached_price() +
          static_cast<double>(completion) * p.completion_per_mtok) /
         1e6;
}

const Pricing& PriceBook::For(std::string_view endpoint) const {
  auto it = endpoints.find(EndpointName(endpoint));
  return it == endpoints.end() ? run : it->second;
}

bool PriceBook::per_token() const {
  if (endpoints.empty()) return run.per_token();
  return std::any_of(endpoints.begin(), endpoints.end(), [](const auto& e) { return e.second.per_token(); });
}

bool PriceBook::per_gpu_hour() const {
  if (endpoints.empty()) return run.per_gpu_hour();
  return std::any_of(endpoints.begin(), endpoints.end(), [](const auto& e) { return e.second.per_gpu_hour(); });
}

double GpuCostUsd(const Pricing& p, double gpu_hours) { return p.per_gpu_hour() ? gpu_hours * p.gpu_hour_usd : 0; }

}  // namespace seragen
