#include "seragen/config/prices.h"

#include <catch2/catch.hpp>

namespace seragen::config {

TEST_CASE("a config's price book names each endpoint without credentials and prices it as resolved", "[config]") {
  LlmConfig llm;
  llm.pricing.prompt_per_mtok = 1;
  Pricing own;
  own.completion_per_mtok = 9;
  llm.endpoints = {{.base_url = "https://u:sk-live-x@api.example/v1?k=1", .pricing = own},
                   {.base_url = "http://127.0.0.1:8000/v1"}};
  PriceBook book = PricesOf(llm);
  CHECK(book.run.prompt_per_mtok == 1);
  REQUIRE(book.endpoints.size() == 2);
  CHECK(book.endpoints.at("https://api.example/v1").completion_per_mtok == 9);
  CHECK(book.endpoints.at("http://127.0.0.1:8000/v1").prompt_per_mtok == 1);
}

}  // namespace seragen::config
