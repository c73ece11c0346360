#include "seragen/secrets/scanner.h"

#include <algorithm>
#include <map>

#include "secrets/field_scanner.h"
#include "secrets/re2_options.h"
#include "seragen/base/hash.h"
#include "seragen/base/utf8.h"

namespace seragen::secrets {
namespace {

struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t secret = 0;  // index into RowSecrets
};

// The distinct secrets of one row, alive only during its scan. The first
// rule that found a secret names it everywhere in the row.
struct RowSecrets {
  std::map<std::string, std::size_t, std::less<>> index;
  std::vector<std::string_view> texts;  // keys of `index`
  std::vector<std::size_t> rules;
  std::vector<std::string> hash8;

  std::size_t Intern(std::string_view secret, std::size_t rule) {
    auto it = index.find(secret);
    if (it != index.end()) return it->second;
    it = index.emplace(std::string(secret), texts.size()).first;
    texts.push_back(it->first);
    rules.push_back(rule);
    hash8.push_back(Sha256Hex(secret).substr(0, 8));
    return it->second;
  }
};

re2::StringPiece Piece(std::string_view s) { return re2::StringPiece(s.data(), s.size()); }

// Bound on the sweep pattern: should RE2 fall back from its DFA to its NFA,
// the pass costs the pattern's size per byte. Secrets beyond it (a row with
// thousands of distinct keys) are replaced only where a rule found them.
constexpr std::size_t kMaxSweepPatternBytes = 16 << 10;

// One leftmost-longest alternation of the row's longer secrets, so that every
// other occurrence of them is found in one linear pass per field.
std::unique_ptr<RE2> SweepPattern(const RowSecrets& secrets) {
  std::string pattern;
  for (std::string_view s : secrets.texts) {
    if (s.size() < kMinSweptSecretBytes) continue;
    std::string quoted = RE2::QuoteMeta(Piece(s));
    if (pattern.size() + quoted.size() + 1 > kMaxSweepPatternBytes) break;
    if (!pattern.empty()) pattern += '|';
    pattern += quoted;
  }
  if (pattern.empty()) return nullptr;
  RE2::Options options = ByteOptions();
  options.set_longest_match(true);
  options.set_max_mem(256 << 20);
  auto re = std::make_unique<RE2>("(" + pattern + ")", options);
  if (!re->ok()) return nullptr;  // too large: hits are still replaced where rules found them
  return re;
}

void AddSweptSpans(const RE2& sweep, std::string_view text, const RowSecrets& secrets, std::vector<Span>& spans) {
  re2::StringPiece input = Piece(text);
  re2::StringPiece match;
  while (RE2::FindAndConsume(&input, sweep, &match) && !match.empty()) {
    auto it = secrets.index.find(std::string_view(match.data(), match.size()));
    if (it == secrets.index.end()) continue;
    std::size_t begin = static_cast<std::size_t>(match.data() - text.data());
    spans.push_back({begin, begin + match.size(), it->second});
  }
}

// Sorts and merges overlapping spans; a merged span keeps the secret of its longest part.
std::vector<Span> MergeSpans(std::vector<Span> spans) {
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.begin != b.begin ? a.begin < b.begin : a.end > b.end; });
  std::vector<Span> merged;
  std::size_t longest = 0;
  for (const Span& s : spans) {
    if (!merged.empty() && s.begin < merged.back().end) {
      if (s.end - s.begin > longest) {
        longest = s.end - s.begin;
        merged.back().secret = s.secret;
      }
      merged.back().end = std::max(merged.back().end, s.end);
      continue;
    }
    merged.push_back(s);
    longest = s.end - s.begin;
  }
  return merged;
}

// One line of valid UTF-8 around [begin, end) of the redacted text.
std::string Context(std::string_view redacted, std::size_t begin, std::size_t end) {
  std::size_t from = begin > kContextBytes ? begin - kContextBytes : 0;
  std::size_t to = std::min(redacted.size(), end + kContextBytes);
  std::string line = RepairUtf8(redacted.substr(from, to - from));
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return line;
}

struct FieldResult {
  std::string text;
  std::vector<SecretHit> hits;
};

FieldResult RedactField(std::size_t field, std::string_view text, const std::vector<Span>& spans,
                        const RowSecrets& secrets, const std::vector<SecretRule>& rules) {
  FieldResult out;
  std::vector<std::pair<std::size_t, std::size_t>> placed;  // placeholder bounds in out.text
  std::size_t pos = 0;
  for (const Span& s : spans) {
    out.text.append(text.substr(pos, s.begin - pos));
    const SecretRule& rule = rules[secrets.rules[s.secret]];
    std::size_t at = out.text.size();
    out.text += Placeholder(rule.name, secrets.hash8[s.secret]);
    placed.emplace_back(at, out.text.size());
    out.hits.push_back({field, rule.name, rule.family, secrets.hash8[s.secret], s.begin, s.end, {}});
    pos = s.end;
  }
  out.text.append(text.substr(pos));
  for (std::size_t i = 0; i < out.hits.size(); ++i) {
    out.hits[i].context = Context(out.text, placed[i].first, placed[i].second);
  }
  return out;
}

}  // namespace

std::string Placeholder(std::string_view rule, std::string_view hash8) {
  return "<REDACTED:" + std::string(rule) + ":" + std::string(hash8) + ">";
}

Result<SecretScanner> SecretScanner::Create(std::vector<SecretRule> rules, const std::vector<std::string>& allow) {
  SG_ASSIGN_OR_RETURN(auto fields, internal::FieldScanner::Create(std::move(rules), allow));
  return SecretScanner(std::shared_ptr<const internal::FieldScanner>(std::move(fields)));
}

Result<SecretScanner> LoadSecretScanner(const std::string& rules_file, const std::vector<std::string>& allow) {
  SG_ASSIGN_OR_RETURN(auto rules, LoadSecretRulesFile(rules_file));
  return SecretScanner::Create(std::move(rules), allow);
}

const std::vector<SecretRule>& SecretScanner::rules() const { return fields_->rules(); }

RowScan SecretScanner::ScanRow(std::span<const std::string_view> fields) const {
  RowSecrets secrets;
  std::vector<std::vector<Span>> spans(fields.size());
  for (std::size_t f = 0; f < fields.size(); ++f) {
    for (const internal::RawMatch& m : fields_->Find(fields[f])) {
      std::size_t id = secrets.Intern(fields[f].substr(m.begin, m.end - m.begin), m.rule);
      spans[f].push_back({m.begin, m.end, id});
    }
  }
  RowScan scan;
  if (secrets.texts.empty()) return scan;
  std::unique_ptr<RE2> sweep = SweepPattern(secrets);
  for (std::size_t f = 0; f < fields.size(); ++f) {
    if (sweep) AddSweptSpans(*sweep, fields[f], secrets, spans[f]);
    FieldResult r = RedactField(f, fields[f], MergeSpans(std::move(spans[f])), secrets, fields_->rules());
    scan.redacted.push_back(std::move(r.text));
    for (SecretHit& h : r.hits) scan.hits.push_back(std::move(h));
  }
  return scan;
}

}  // namespace seragen::secrets
