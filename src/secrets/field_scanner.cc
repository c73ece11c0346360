#include "secrets/field_scanner.h"

#include <algorithm>

#include "secrets/entropy.h"
#include "secrets/re2_options.h"

namespace seragen::secrets::internal {
namespace {

constexpr std::string_view kRegexPrefix = "re:";

char LowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool ContainsIgnoreCase(std::string_view text, std::string_view word) {
  if (word.empty()) return true;
  auto it = std::search(text.begin(), text.end(), word.begin(), word.end(),
                        [](char a, char b) { return LowerAscii(a) == LowerAscii(b); });
  return it != text.end();
}

bool AnyKeyword(std::string_view text, const std::vector<std::string>& keywords) {
  if (keywords.empty()) return true;
  return std::any_of(keywords.begin(), keywords.end(),
                     [&](const std::string& k) { return ContainsIgnoreCase(text, k); });
}

re2::StringPiece Piece(std::string_view s) { return re2::StringPiece(s.data(), s.size()); }

}  // namespace

Result<std::unique_ptr<FieldScanner>> FieldScanner::Create(std::vector<SecretRule> rules,
                                                           const std::vector<std::string>& allow) {
  std::unique_ptr<FieldScanner> s(new FieldScanner());
  s->set_ = std::make_unique<RE2::Set>(ByteOptions(), RE2::UNANCHORED);
  for (const SecretRule& rule : rules) {
    auto re = std::make_unique<RE2>(rule.pattern, ByteOptions());
    std::string error;
    if (!re->ok() || s->set_->Add(Piece(rule.pattern), &error) < 0) {
      return InvalidArgumentError("secret rule " + rule.name + ": pattern does not compile: " + re->error() + error);
    }
    s->compiled_.push_back(std::move(re));
  }
  if (!rules.empty() && !s->set_->Compile()) return ResourceExhaustedError("secret rules: the rule set is too large");
  s->rules_ = std::move(rules);
  for (std::size_t i = 0; i < allow.size(); ++i) {
    const std::string& entry = allow[i];
    if (entry.rfind(kRegexPrefix, 0) != 0) {
      s->allow_exact_.insert(entry);
      continue;
    }
    auto re = std::make_unique<RE2>(entry.substr(kRegexPrefix.size()), ByteOptions());
    if (!re->ok()) {
      return InvalidArgumentError("export.secrets.allow[" + std::to_string(i) +
                                  "]: regex does not compile: " + re->error());
    }
    s->allow_patterns_.push_back(std::move(re));
  }
  return s;
}

std::vector<int> FieldScanner::CandidateRules(std::string_view text) const {
  std::vector<int> ids;
  if (rules_.empty()) return ids;
  RE2::Set::ErrorInfo info{};
  // Most texts hold no secret: a first pass without the list of matching
  // rules stops at the first match and allocates nothing.
  if (!set_->Match(Piece(text), nullptr, &info) && info.kind == RE2::Set::kNoError) return ids;
  if (set_->Match(Piece(text), &ids, &info)) {
    std::sort(ids.begin(), ids.end());
    return ids;
  }
  ids.clear();
  if (info.kind == RE2::Set::kNoError) return ids;
  // The set's DFA ran out of memory on this text: every rule runs on its
  // own (each still linear; RE2 falls back to its NFA).
  for (std::size_t i = 0; i < rules_.size(); ++i) ids.push_back(static_cast<int>(i));
  return ids;
}

bool FieldScanner::Allowed(std::string_view secret) const {
  if (allow_exact_.count(std::string(secret))) return true;
  return std::any_of(allow_patterns_.begin(), allow_patterns_.end(),
                     [&](const std::unique_ptr<RE2>& re) { return RE2::PartialMatch(Piece(secret), *re); });
}

bool FieldScanner::Accepts(const SecretRule& rule, std::string_view secret) const {
  if (secret.empty() || secret.size() < static_cast<std::size_t>(rule.min_length)) return false;
  if (rule.mixed && !HasLetterAndDigit(secret)) return false;
  if (rule.min_entropy > 0 && ShannonBitsPerByte(secret) < rule.min_entropy) return false;
  return !Allowed(secret);
}

void FieldScanner::Confirm(std::size_t rule_index, std::string_view text, std::vector<RawMatch>& out) const {
  const SecretRule& rule = rules_[rule_index];
  if (!AnyKeyword(text, rule.keywords)) return;
  const RE2& re = *compiled_[rule_index];
  const int n = rule.secret_group + 1;
  std::vector<re2::StringPiece> groups(static_cast<std::size_t>(n));
  const re2::StringPiece whole = Piece(text);
  std::size_t pos = 0;
  while (pos <= text.size() && re.Match(whole, pos, text.size(), RE2::UNANCHORED, groups.data(), n)) {
    const re2::StringPiece& m = groups[0];
    const re2::StringPiece& g = groups[static_cast<std::size_t>(rule.secret_group)];
    std::size_t match_end = static_cast<std::size_t>(m.data() - text.data()) + m.size();
    if (g.data() != nullptr && Accepts(rule, std::string_view(g.data(), g.size()))) {
      std::size_t begin = static_cast<std::size_t>(g.data() - text.data());
      out.push_back({rule_index, begin, begin + g.size()});
    }
    pos = match_end > pos ? match_end : pos + 1;
  }
}

std::vector<RawMatch> FieldScanner::Find(std::string_view text) const {
  std::vector<RawMatch> out;
  for (int id : CandidateRules(text)) Confirm(static_cast<std::size_t>(id), text, out);
  return out;
}

}  // namespace seragen::secrets::internal
