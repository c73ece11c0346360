// nlohmann_json helpers internal to src/llm (never included by public headers).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "seragen/base/json_depth.h"

namespace seragen::llm::internal {

using Json = nlohmann::json;

// Parses without throwing; std::nullopt on malformed input or input nested
// deeper than `max_depth` (so the value can be dumped and copied without deep
// recursion). `error`, when given, receives the reason.
inline std::optional<Json> TryParse(std::string_view text, int max_depth = kMaxJsonDepth,
                                    std::string* error = nullptr) {
  if (Status depth = CheckJsonDepth(text, "JSON text", max_depth); !depth.ok()) {
    if (error) *error = depth.message();
    return std::nullopt;
  }
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    if (error) *error = "not valid JSON";
    return std::nullopt;
  }
  return j;
}

inline std::string StringOr(const Json& j, const char* key, std::string fallback = {}) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

inline std::optional<std::int64_t> IntField(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (it->is_number_integer() || it->is_number_unsigned()) return it->get<std::int64_t>();
  if (it->is_number_float()) return static_cast<std::int64_t>(it->get<double>());
  return std::nullopt;
}

// Compact dump that never throws on invalid UTF-8 (replaces bad bytes).
inline std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace seragen::llm::internal
