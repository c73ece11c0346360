#include "seragen/secrets/scanner.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "secrets/field_scanner.h"
#include "secrets/re2_options.h"
#include "seragen/base/hash.h"
#include "seragen/base/utf8.h"

namespace seragen::secrets {
namespace {

constexpr std::uint32_t kNotInterned = UINT32_MAX;

// 24 bytes per hit: what a row's scan holds for every hit until its field is
// redacted.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::uint32_t rule = 0;               // the rule that found it (or named the swept secret)
  std::uint32_t secret = kNotInterned;  // index into RowSecrets
};

// Bytes of distinct secrets a row's scan remembers: enough for the sweep
// pattern and for a readable row to name each secret the same everywhere. A
// row past it (thousands of distinct keys) gets its further secrets replaced
// where rules found them, each hashed on its own.
constexpr std::size_t kMaxInternedBytes = 64 << 10;

// The distinct secrets of one row, alive only during its scan. The first
// rule that found a secret names it everywhere in the row.
struct RowSecrets {
  std::map<std::string, std::uint32_t, std::less<>> index;
  std::vector<std::string_view> texts;  // keys of `index`
  std::vector<std::uint32_t> rules;
  std::vector<std::string> hash8;
  std::size_t bytes = 0;

  std::uint32_t Intern(std::string_view secret, std::uint32_t rule) {
    auto it = index.find(secret);
    if (it != index.end()) return it->second;
    if (bytes + secret.size() > kMaxInternedBytes) return kNotInterned;
    bytes += secret.size();
    it = index.emplace(std::string(secret), static_cast<std::uint32_t>(texts.size())).first;
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
    spans.push_back({begin, begin + match.size(), secrets.rules[it->second], it->second});
  }
}

// Sorts and merges overlapping spans in place; a merged span keeps the
// secret of its longest part.
void MergeSpans(std::vector<Span>& spans) {
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.begin != b.begin ? a.begin < b.begin : a.end > b.end; });
  std::size_t out = 0, longest = 0;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const Span s = spans[i];
    if (out > 0 && s.begin < spans[out - 1].end) {
      Span& last = spans[out - 1];
      if (s.end - s.begin > longest) {
        longest = s.end - s.begin;
        last.rule = s.rule;
        last.secret = s.secret;
      }
      last.end = std::max(last.end, s.end);
      continue;
    }
    spans[out++] = s;
    longest = s.end - s.begin;
  }
  spans.resize(out);
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

// Redacts one field and reports its hits: to `scan` (counted, the first
// kMaxKeptHits kept) and to `sink`.
class FieldRedactor {
 public:
  FieldRedactor(const RowSecrets& secrets, const std::vector<SecretRule>& rules, const HitSink& sink, RowScan& scan,
                std::vector<std::size_t>& counts)
      : secrets_(secrets), rules_(rules), sink_(sink), scan_(scan), counts_(counts) {}

  void Redact(std::size_t field, std::string_view text, const std::vector<Span>& spans) {
    std::string out;
    out.reserve(text.size());
    std::size_t pos = 0;
    for (const Span& s : spans) {
      out.append(text.substr(pos, s.begin - pos));
      out += Placeholder(rules_[s.rule].name, Hash8(text, s));
      pos = s.end;
    }
    out.append(text.substr(pos));
    Report(field, out, spans);
    scan_.redacted.push_back(std::move(out));
  }

 private:
  std::string Hash8(std::string_view text, const Span& s) const {
    if (s.secret != kNotInterned) return secrets_.hash8[s.secret];
    return Sha256Hex(text.substr(s.begin, s.end - s.begin)).substr(0, 8);
  }

  // Walks the spans again over the redacted text: each placeholder sits at
  // its span's offset moved by the length changes before it.
  void Report(std::size_t field, std::string_view out, const std::vector<Span>& spans) {
    std::ptrdiff_t shift = 0;
    for (const Span& s : spans) {
      const SecretRule& rule = rules_[s.rule];
      const std::size_t at = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(s.begin) + shift);
      const std::size_t size = Placeholder(rule.name, "12345678").size();
      shift += static_cast<std::ptrdiff_t>(size) - static_cast<std::ptrdiff_t>(s.end - s.begin);
      ++scan_.hit_count;
      ++counts_[s.rule];
      if (!sink_ && scan_.hits.size() >= kMaxKeptHits) continue;
      const std::string hash8(out.substr(at + size - 9, 8));
      SecretHit hit{field, rule.name, rule.family, hash8, s.begin, s.end, Context(out, at, at + size)};
      if (sink_) sink_(hit);
      if (scan_.hits.size() < kMaxKeptHits) scan_.hits.push_back(std::move(hit));
    }
  }

  const RowSecrets& secrets_;
  const std::vector<SecretRule>& rules_;
  const HitSink& sink_;
  RowScan& scan_;
  std::vector<std::size_t>& counts_;
};

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

RowScan SecretScanner::ScanRow(std::span<const std::string_view> fields, const HitSink& sink) const {
  RowSecrets secrets;
  std::vector<std::vector<Span>> spans(fields.size());
  bool any = false;
  for (std::size_t f = 0; f < fields.size(); ++f) {
    std::vector<internal::RawMatch> found = fields_->Find(fields[f]);
    spans[f].reserve(found.size());
    for (const internal::RawMatch& m : found) {
      const auto rule = static_cast<std::uint32_t>(m.rule);
      std::uint32_t id = secrets.Intern(fields[f].substr(m.begin, m.end - m.begin), rule);
      spans[f].push_back({m.begin, m.end, id == kNotInterned ? rule : secrets.rules[id], id});
    }
    any = any || !found.empty();
  }
  RowScan scan;
  if (!any) return scan;
  std::unique_ptr<RE2> sweep = SweepPattern(secrets);
  std::vector<std::size_t> counts(fields_->rules().size(), 0);
  FieldRedactor redactor(secrets, fields_->rules(), sink, scan, counts);
  for (std::size_t f = 0; f < fields.size(); ++f) {
    if (sweep) AddSweptSpans(*sweep, fields[f], secrets, spans[f]);
    MergeSpans(spans[f]);
    redactor.Redact(f, fields[f], spans[f]);
    std::vector<Span>().swap(spans[f]);  // this field's hits are reported: free them
  }
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (counts[r] > 0) scan.hits_by_rule[fields_->rules()[r].name] += counts[r];
  }
  return scan;
}

}  // namespace seragen::secrets
