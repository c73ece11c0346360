// One text against every rule: RE2::Set finds which rules match anywhere in
// one pass; only those rules then run on their own to locate their secrets,
// which pass the rule's entropy/mixed checks and the allow-list. Work is
// linear in the text (at most one pass for the set plus one per matching rule).
#pragma once

#include <re2/re2.h>
#include <re2/set.h>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/secrets/rules.h"

namespace seragen::secrets::internal {

struct RawMatch {
  std::size_t rule = 0;  // index into the rules
  std::size_t begin = 0;
  std::size_t end = 0;  // secret bytes: text[begin, end)
};

class FieldScanner {
 public:
  // Compiles the rules and the allow-list (exact strings; "re:" + RE2 pattern
  // for regexes matched anywhere in the secret). Errors name the entry.
  static Result<std::unique_ptr<FieldScanner>> Create(std::vector<SecretRule> rules,
                                                      const std::vector<std::string>& allow);

  // Matches in the order rules, then offsets. Thread-safe.
  std::vector<RawMatch> Find(std::string_view text) const;

  const std::vector<SecretRule>& rules() const { return rules_; }

 private:
  FieldScanner() = default;
  std::vector<int> CandidateRules(std::string_view text) const;
  void Confirm(std::size_t rule, std::string_view text, std::vector<RawMatch>& out) const;
  bool Accepts(const SecretRule& rule, std::string_view secret) const;
  bool Allowed(std::string_view secret) const;

  std::vector<SecretRule> rules_;
  std::vector<std::unique_ptr<RE2>> compiled_;
  std::unique_ptr<RE2::Set> set_;
  std::unordered_set<std::string> allow_exact_;
  std::vector<std::unique_ptr<RE2>> allow_patterns_;
};

}  // namespace seragen::secrets::internal
