#include "seragen/base/pricing.h"

#include <catch2/catch.hpp>

namespace seragen {

TEST_CASE("TokenCostUsd charges cached prompt tokens at their own price when set, else at the prompt price", "[base]") {
  Pricing p;
  p.prompt_per_mtok = 2.0;
  p.completion_per_mtok = 8.0;
  // 1M prompt of which 400k cached, 100k completion; no cached price: all prompt tokens at $2.
  CHECK(TokenCostUsd(p, 1'000'000, 400'000, 100'000) == Approx(2.0 + 0.8));
  p.cached_per_mtok = 0.5;
  CHECK(TokenCostUsd(p, 1'000'000, 400'000, 100'000) == Approx(1.2 + 0.2 + 0.8));
  p.cached_per_mtok = 0;  // set to free
  CHECK(TokenCostUsd(p, 1'000'000, 400'000, 100'000) == Approx(1.2 + 0.8));
}

TEST_CASE("A GPU-hour price prices wall time and no token, per-token prices no wall time", "[base]") {
  Pricing gpu;
  gpu.gpu_hour_usd = 2.5;
  CHECK(gpu.priced());
  CHECK_FALSE(gpu.per_token());
  CHECK(TokenCostUsd(gpu, 1'000'000, 0, 1'000'000) == 0);
  CHECK(GpuCostUsd(gpu, 4.0) == Approx(10.0));
  Pricing tokens;
  tokens.completion_per_mtok = 1;
  CHECK(GpuCostUsd(tokens, 4.0) == 0);
  CHECK_FALSE(Pricing{}.priced());
}

}  // namespace seragen
