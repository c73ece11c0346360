// Secret rules: named patterns for credentials, read from a YAML data file
// (configs/secret_rules.yaml; format in docs/SECRETS.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::secrets {

struct SecretRule {
  std::string name;     // appears in placeholders and reports: [a-z0-9-]+
  std::string family;   // groups rules for counting (aws, github, pem, ...)
  std::string pattern;  // RE2 syntax, matched over bytes (Latin-1 mode)
  // Capture group that is the secret (0 = the whole match).
  int secret_group = 0;
  // When non-empty, a text is confirmed for this rule only if one of these
  // occurs in it (ASCII case-insensitive): a cheap guard for broad patterns.
  // 1-64 bytes each.
  std::vector<std::string> keywords;
  // Bytes the secret must have at least (0 = no check).
  int min_length = 0;
  // Shannon entropy (bits per byte) the secret must reach (0 = no check).
  double min_entropy = 0;
  // The secret must hold both an ASCII letter and an ASCII digit.
  bool mixed = false;
};

// Parses the rules file text. Errors name `source` and the rule (index and
// name) and what is wrong: missing name/pattern, duplicate or malformed
// name, a pattern RE2 rejects, a secret_group the pattern does not have.
Result<std::vector<SecretRule>> ParseSecretRules(std::string_view yaml_text, std::string_view source);

// Reads and parses a rules file (at most 1 MiB).
Result<std::vector<SecretRule>> LoadSecretRulesFile(const std::string& path);

}  // namespace seragen::secrets
