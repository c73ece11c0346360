#include "seragen/base/pricing.h"

namespace seragen {

double TokenCostUsd(const Pricing& p, std::int64_t prompt, std::int64_t cached, std::int64_t completion) {
  if (!p.per_token()) return 0;
  return (static_cast<double>(prompt - cached) * p.prompt_per_mtok + static_cast<double>(cached) * p.cached_price() +
          static_cast<double>(completion) * p.completion_per_mtok) /
         1e6;
}

double GpuCostUsd(const Pricing& p, double gpu_hours) { return p.per_gpu_hour() ? gpu_hours * p.gpu_hour_usd : 0; }

}  // namespace seragen
