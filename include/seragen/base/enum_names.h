// One table of (value, name) pairs per enum serves both directions, so each
// name is written once. Header-only; the tables are the callers' constexpr
// arrays.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "seragen/base/result.h"

namespace seragen {

template <typename E>
using EnumNameTable = std::span<const std::pair<E, std::string_view>>;

// The name `table` gives `value`; `fallback` when it gives none.
template <typename E>
constexpr std::string_view NameOf(EnumNameTable<E> table, E value, std::string_view fallback) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return fallback;
}

// The value `table` names `name` (exact, case-sensitive); nullopt when none.
template <typename E>
constexpr std::optional<E> ValueNamed(EnumNameTable<E> table, std::string_view name) {
  for (const auto& [v, n] : table) {
    if (n == name) return v;
  }
  return std::nullopt;
}

// ValueNamed, or kInvalidArgument "unknown <what> '<name>' (expected
// <expected>)" when the table has no such name.
template <typename E>
Result<E> ParseNamed(EnumNameTable<E> table, std::string_view name, std::string_view what, std::string_view expected) {
  if (std::optional<E> value = ValueNamed(table, name)) return *value;
  return InvalidArgumentError("unknown " + std::string(what) + " '" + std::string(name) + "' (expected " +
                              std::string(expected) + ")");
}

}  // namespace seragen
