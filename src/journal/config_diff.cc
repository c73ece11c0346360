#include "seragen/journal/config_diff.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "seragen/base/json_depth.h"

namespace seragen::journal {
namespace {

using Json = nlohmann::json;

bool IsPlainKey(const std::string& key) {
  if (key.empty()) return false;
  for (char c : key) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string KeySegment(const std::string& key) { return IsPlainKey(key) ? key : Dump(Json(key)); }

void Flatten(const Json& j, const std::string& path, std::map<std::string, const Json*>* out) {
  if (j.is_object() && !j.empty()) {
    for (const auto& [key, value] : j.items()) {
      Flatten(value, path.empty() ? KeySegment(key) : path + "." + KeySegment(key), out);
    }
  } else if (j.is_array() && !j.empty()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      Flatten(j[i], fmt::format("{}[{}]", path, i), out);
    }
  } else {
    (*out)[path] = &j;
  }
}

Result<Json> ParseSide(std::string_view text, std::string_view side) {
  if (Status depth = CheckJsonDepth(text, fmt::format("the {} configuration", side)); !depth.ok()) return depth;
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return ParseError(fmt::format("the {} configuration is not a JSON object", side));
  }
  return j;
}

bool UnderPrefix(const std::string& path, const std::string& prefix) {
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

std::string Shorten(const std::string& value) {
  constexpr std::size_t kMax = 80;
  if (value.size() <= kMax) return value;
  return value.substr(0, kMax) + "...";
}

}  // namespace

Result<std::vector<ConfigDifference>> DiffConfigJson(std::string_view stored_json, std::string_view current_json) {
  SG_ASSIGN_OR_RETURN(Json stored, ParseSide(stored_json, "stored"));
  SG_ASSIGN_OR_RETURN(Json current, ParseSide(current_json, "current"));
  std::map<std::string, const Json*> a, b;
  Flatten(stored, "", &a);
  Flatten(current, "", &b);
  a.erase("");  // an empty top-level object flattens to the root leaf
  b.erase("");
  std::vector<ConfigDifference> out;
  auto ia = a.begin();
  auto ib = b.begin();
  while (ia != a.end() || ib != b.end()) {
    ConfigDifference d;
    if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
      d.kind = ConfigDifference::Kind::kRemoved;
      d.path = ia->first;
      d.old_value = Dump(*ia->second);
      ++ia;
    } else if (ia == a.end() || ib->first < ia->first) {
      d.kind = ConfigDifference::Kind::kAdded;
      d.path = ib->first;
      d.new_value = Dump(*ib->second);
      ++ib;
    } else {
      bool same = *ia->second == *ib->second;
      if (!same) {
        d.kind = ConfigDifference::Kind::kChanged;
        d.path = ia->first;
        d.old_value = Dump(*ia->second);
        d.new_value = Dump(*ib->second);
      }
      ++ia;
      ++ib;
      if (same) continue;
    }
    out.push_back(std::move(d));
  }
  return out;
}

Status CheckConfigCompatible(std::string_view stored_json, std::string_view current_json,
                             const ConfigCheckOptions& options) {
  SG_ASSIGN_OR_RETURN(auto diffs, DiffConfigJson(stored_json, current_json));
  std::string lines;
  std::size_t counted = 0;
  for (auto& d : diffs) {
    for (const auto& prefix : options.ignored_prefixes) {
      if (UnderPrefix(d.path, prefix)) d.ignored = true;
    }
    if (d.ignored) continue;
    ++counted;
    switch (d.kind) {
      case ConfigDifference::Kind::kAdded:
        lines += fmt::format("\n  added   {}: {}", d.path, Shorten(d.new_value));
        break;
      case ConfigDifference::Kind::kRemoved:
        lines += fmt::format("\n  removed {} (was {})", d.path, Shorten(d.old_value));
        break;
      case ConfigDifference::Kind::kChanged:
        lines += fmt::format("\n  changed {}: {} -> {}", d.path, Shorten(d.old_value), Shorten(d.new_value));
        break;
    }
  }
  if (counted == 0) return Status::Ok();
  return FailedPreconditionError(
      fmt::format("the configuration differs from {} ({} change{}):{}\n"
                  "To continue this run with the new configuration pass {} (records already written keep "
                  "their old settings), or start a new run directory.",
                  options.stored_description, counted, counted == 1 ? "" : "s", lines, options.override_flag));
}

}  // namespace seragen::journal
