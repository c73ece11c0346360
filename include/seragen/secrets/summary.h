// Counts of one export's secret scan, for the export summary, `status` and
// the report: rows scanned, rows with hits and what happened to them, hits
// by rule. Never holds a secret (rule names and counts only).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/secrets/action.h"
#include "seragen/secrets/scanner.h"

namespace seragen::secrets {

struct SecretSummary {
  std::int64_t rows_scanned = 0;
  std::int64_t rows_with_hits = 0;  // = redacted + dropped + reported
  std::int64_t rows_redacted = 0;
  std::int64_t rows_dropped = 0;
  std::int64_t rows_reported = 0;
  std::map<std::string, std::int64_t> hits_by_rule;

  // Counts one scanned row and what `action` did with it (nothing when clean).
  void Add(const RowScan& scan, SecretAction action);
  void Merge(const SecretSummary& other);
  friend bool operator==(const SecretSummary&, const SecretSummary&) = default;
};

// One JSON object: {"rows_scanned":..,"rows_with_hits":..,"rows_redacted":..,
// "rows_dropped":..,"rows_reported":..,"hits_by_rule":{"rule":n,...}}.
std::string EncodeSecretSummary(const SecretSummary& summary);
// Total: malformed, too deep, or with negative or non-integer counts is an
// error naming `what` and the field.
Result<SecretSummary> DecodeSecretSummary(std::string_view json, std::string_view what);

// The secret lines of `export` and `status`: rows scanned, with hits and
// what happened to them, then hits by rule, each line after `indent`.
std::string FormatSecretSummary(const SecretSummary& summary, const std::string& indent = "");

}  // namespace seragen::secrets
