#include "seragen/base/pricing.h"

#include "seragen/base/endpoint_name.h"

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

TEST_CASE("A price book gives each endpoint its own price, and llm.pricing to the rest", "[base]") {
  PriceBook book;
  book.run.prompt_per_mtok = 1;
  Pricing hosted;
  hosted.prompt_per_mtok = 5;
  Pricing local;
  local.gpu_hour_usd = 2;
  book.endpoints = {{"https://api.example/v1", hosted}, {"http://gpu0:8000/v1", local}};
  CHECK(book.For("https://api.example/v1").prompt_per_mtok == 5);
  CHECK(book.For("https://user:key@api.example/v1?x=1").prompt_per_mtok == 5);  // named as records name it
  CHECK(book.For("http://gpu0:8000/v1").gpu_hour_usd == 2);
  CHECK(book.For("").prompt_per_mtok == 1);  // tokens of no named endpoint
  CHECK(book.For("http://other/v1").prompt_per_mtok == 1);
  CHECK(book.per_token());
  CHECK(book.per_gpu_hour());
  book.endpoints.erase("http://gpu0:8000/v1");
  CHECK_FALSE(book.per_gpu_hour());
  CHECK_FALSE(PriceBook{}.priced());
}

TEST_CASE("An endpoint's name is its base URL without credentials, query or fragment", "[base]") {
  CHECK(EndpointName("https://user:s3cret@gpu0.example:8000/v1?key=abc#f") == "https://gpu0.example:8000/v1");
  CHECK(EndpointName("http://h:1/v1") == "http://h:1/v1");
  CHECK(EndpointName("http://h/a@b") == "http://h/a@b");  // an @ in the path is no credential
  CHECK(EndpointName("") == "");
}

}  // namespace seragen
