// How records name a teacher endpoint: its base URL without user:password@,
// query or fragment, so no credential reaches a file. The occupancy records,
// the journals' per-endpoint tokens, the answers the llm client returns and
// the price of each endpoint (pricing.h PriceBook) all use this one name.
#pragma once

#include <string>
#include <string_view>

namespace seragen {

// "https://user:key@host:8000/v1?token=x" -> "https://host:8000/v1". Total:
// any text gives a name (text without "://" keeps its path part).
std::string EndpointName(std::string_view base_url);

}  // namespace seragen
