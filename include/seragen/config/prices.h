// The price book of a configured run: llm.pricing and each endpoint's
// resolved llm.endpoints[].pricing, by endpoint name (base/pricing.h
// PriceBook). The one place a config becomes prices: the run's meters and
// budgets (cli) and the cost ledger of a saved config (runview) use it.
#pragma once

#include "seragen/base/pricing.h"
#include "seragen/config/config.h"

namespace seragen::config {

PriceBook PricesOf(const LlmConfig& llm);

}  // namespace seragen::config
