#include "seragen/config/prices.h"

#include "seragen/base/endpoint_name.h"

namespace seragen::config {

PriceBook PricesOf(const LlmConfig& llm) {
  PriceBook book;
  book.run = llm.pricing;
  for (const EndpointConfig& e : llm.endpoints) {
    book.endpoints.emplace(EndpointName(e.base_url), e.pricing ? *e.pricing : llm.pricing);
  }
  return book;
}

}  // namespace seragen::config
