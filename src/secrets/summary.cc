#include "seragen/secrets/summary.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "seragen/base/json_depth.h"

namespace seragen::secrets {
namespace {

using Json = nlohmann::json;

constexpr const char* kCountFields[] = {"rows_scanned", "rows_with_hits", "rows_redacted", "rows_dropped",
                                        "rows_reported"};

std::int64_t SecretSummary::*CountMember(std::size_t i) {
  static std::int64_t SecretSummary::*const kMembers[] = {&SecretSummary::rows_scanned, &SecretSummary::rows_with_hits,
                                                          &SecretSummary::rows_redacted, &SecretSummary::rows_dropped,
                                                          &SecretSummary::rows_reported};
  return kMembers[i];
}

Result<std::int64_t> ReadCount(const Json& value, std::string_view what, const std::string& field) {
  if (!value.is_number_integer() || value.get<std::int64_t>() < 0) {
    return ParseError(std::string(what) + ": " + field + ": expected a non-negative integer");
  }
  return value.get<std::int64_t>();
}

}  // namespace

void SecretSummary::Add(const RowScan& scan, SecretAction action) {
  ++rows_scanned;
  if (scan.clean()) return;
  ++rows_with_hits;
  ++(action == SecretAction::kRedact ? rows_redacted : action == SecretAction::kDrop ? rows_dropped : rows_reported);
  for (const auto& [rule, n] : scan.hits_by_rule) hits_by_rule[rule] += static_cast<std::int64_t>(n);
}

void SecretSummary::Merge(const SecretSummary& other) {
  for (std::size_t i = 0; i < std::size(kCountFields); ++i) this->*CountMember(i) += other.*CountMember(i);
  for (const auto& [rule, n] : other.hits_by_rule) hits_by_rule[rule] += n;
}

std::string EncodeSecretSummary(const SecretSummary& summary) {
  nlohmann::ordered_json out;
  for (std::size_t i = 0; i < std::size(kCountFields); ++i) out[kCountFields[i]] = summary.*CountMember(i);
  out["hits_by_rule"] = nlohmann::ordered_json::object();
  for (const auto& [rule, n] : summary.hits_by_rule) out["hits_by_rule"][rule] = n;
  return out.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result<SecretSummary> DecodeSecretSummary(std::string_view json, std::string_view what) {
  SG_RETURN_IF_ERROR(CheckJsonDepth(json, what));
  Json doc = Json::parse(json, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return ParseError(std::string(what) + ": expected a JSON object");
  SecretSummary summary;
  for (std::size_t i = 0; i < std::size(kCountFields); ++i) {
    if (!doc.contains(kCountFields[i])) continue;
    SG_ASSIGN_OR_RETURN(summary.*CountMember(i), ReadCount(doc[kCountFields[i]], what, kCountFields[i]));
  }
  if (doc.contains("hits_by_rule")) {
    const Json& rules = doc["hits_by_rule"];
    if (!rules.is_object()) return ParseError(std::string(what) + ": hits_by_rule: expected an object");
    for (const auto& [rule, n] : rules.items()) {
      SG_ASSIGN_OR_RETURN(summary.hits_by_rule[rule], ReadCount(n, what, "hits_by_rule." + rule));
    }
  }
  return summary;
}

std::string FormatSecretSummary(const SecretSummary& s, const std::string& indent) {
  std::string out =
      indent + fmt::format("secrets: {} rows scanned, {} with hits ({} redacted, {} dropped, {} reported)\n",
                           s.rows_scanned, s.rows_with_hits, s.rows_redacted, s.rows_dropped, s.rows_reported);
  for (const auto& [rule, n] : s.hits_by_rule) out += indent + fmt::format("  secret {}: {}\n", rule, n);
  return out;
}

}  // namespace seragen::secrets
