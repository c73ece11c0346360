// The secret scanner export calls on every row before it is written: a row is
// the list of text fields that leave as data (message contents, reasoning,
// tool-call arguments, patches, the issue). The scan returns the hits and, for
// redaction, the row's texts with every secret replaced by
// <REDACTED:rule:hash8>, the same placeholder for the same secret across the
// whole row. Secrets themselves are never kept in the result: a hit carries
// the rule, the first 8 hex digits of the secret's SHA-256 and byte offsets,
// and its context is taken from the redacted text.
//
// Total: any bytes (invalid UTF-8 included) are scanned byte-wise; nothing
// throws; work is linear in the row's size (RE2, no backtracking).
//
// Bounded: besides the row and its redacted copy, a scan holds 24 bytes per
// hit of the field being redacted and at most kMaxKeptHits hit records;
// every hit can be streamed to a sink instead (export --secrets-report).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/secrets/rules.h"

namespace seragen::secrets {

namespace internal {
class FieldScanner;
}

struct SecretHit {
  std::size_t field = 0;  // index into the scanned row
  std::string rule;
  std::string family;
  std::string hash8;      // first 8 hex digits of SHA-256 of the secret
  std::size_t begin = 0;  // byte offsets in the original field
  std::size_t end = 0;
  std::string context;  // up to kContextBytes either side, secret masked, valid UTF-8, one line
};

struct RowScan {
  // The first kMaxKeptHits hits, ordered by field, then offset.
  std::vector<SecretHit> hits;
  std::size_t hit_count = 0;                        // every hit, kept or not
  std::map<std::string, std::size_t> hits_by_rule;  // every hit
  // One text per field with every hit replaced; empty when there are no hits
  // (the row is clean and its texts need no copy).
  std::vector<std::string> redacted;
  bool clean() const { return hit_count == 0; }
};

// Hit records a RowScan keeps; the rest are counted (and given to the sink).
inline constexpr std::size_t kMaxKeptHits = 1000;

// Called with every hit of a row, in the order of RowScan::hits.
using HitSink = std::function<void(const SecretHit&)>;

// Bytes of context kept on each side of a hit.
inline constexpr std::size_t kContextBytes = 32;

// A secret of at least this many bytes, once found anywhere in a row, is
// also replaced wherever else it occurs in the row (an echo of a key found
// in a config file); shorter ones (a short password in a URL) only where a
// rule found them.
inline constexpr std::size_t kMinSweptSecretBytes = 8;

// "<REDACTED:rule:hash8>".
std::string Placeholder(std::string_view rule, std::string_view hash8);

class SecretScanner {
 public:
  // `allow`: exact secrets that pass, or "re:PATTERN" (RE2, matched anywhere
  // in the secret; anchor with ^...$). Errors name the rule or allow entry.
  static Result<SecretScanner> Create(std::vector<SecretRule> rules, const std::vector<std::string>& allow);

  // Thread-safe; a copy shares the compiled rules. `sink`, when set, gets
  // every hit (kept or not) as soon as its field is redacted.
  RowScan ScanRow(std::span<const std::string_view> fields, const HitSink& sink = {}) const;

  const std::vector<SecretRule>& rules() const;

 private:
  explicit SecretScanner(std::shared_ptr<const internal::FieldScanner> fields) : fields_(std::move(fields)) {}
  std::shared_ptr<const internal::FieldScanner> fields_;
};

// LoadSecretRulesFile(rules_file) + SecretScanner::Create: what export builds
// from export.secrets.rules_file (the shipped configs/secret_rules.yaml when
// that is empty) and export.secrets.allow.
Result<SecretScanner> LoadSecretScanner(const std::string& rules_file, const std::vector<std::string>& allow);

}  // namespace seragen::secrets
