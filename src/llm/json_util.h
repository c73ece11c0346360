// nlohmann_json helpers internal to src/llm (never included by public headers).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "seragen/base/json_depth.h"

namespace seragen::llm::internal {

// Ordered: objects keep the order they were written in, so a tool call's
// arguments keep the model's key order and a tool schema the tools file's;
// a key written twice keeps its first place and its last value, as Python's
// json.loads reads it.
using Json = nlohmann::ordered_json;

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

// Largest integer a double holds exactly; token counts and indexes above it
// are not believable (and a double beyond int64 has no defined conversion).
inline constexpr std::int64_t kMaxExactInteger = std::int64_t{1} << 53;

// The value as an integer when it is one within +-2^53 (an integral float
// such as 12.0 included); nullopt for anything else (12.5, 1e30, "64").
inline std::optional<std::int64_t> ExactInteger(const Json& v) {
  if (v.is_number_unsigned()) {
    std::uint64_t u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(kMaxExactInteger)) return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer()) {
    std::int64_t i = v.get<std::int64_t>();
    if (i > kMaxExactInteger || i < -kMaxExactInteger) return std::nullopt;
    return i;
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) ||
        d != static_cast<double>(static_cast<std::int64_t>(d)))
      return std::nullopt;
    return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

inline std::optional<std::int64_t> IntField(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  return ExactInteger(*it);
}

// Compact dump that never throws on invalid UTF-8 (replaces bad bytes).
inline std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace seragen::llm::internal
