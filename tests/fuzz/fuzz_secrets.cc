// Target for the secret scanner: it reads model and repository bytes.
// Input: fields separated by 0x1e. Marker bytes splice in the fake secrets of
// testing/fake_secrets.h (so the seed corpus itself holds none):
//   0x01 k       the k-th fake secret's text, whole
//   0x02 k m     the same, cut to m bytes
//   0x03 k m b   the same, byte m replaced by b
// Contract: the scan never throws; hits lie inside their fields, in order;
// redacted texts exist exactly when there are hits; contexts are one line of
// valid UTF-8; a whole fake secret a hit covers exactly appears in no
// redacted text and no context.
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"
#include "seragen/base/utf8.h"
#include "seragen/secrets/scanner.h"
#include "testing/fake_secrets.h"
#include "testing/source_paths.h"

namespace seragen::fuzz {
namespace {

struct Input {
  std::vector<std::string> fields{std::string()};
  std::vector<std::string> whole_secrets;  // spliced in unchanged
};

const secrets::SecretScanner& Scanner() {
  static const secrets::SecretScanner* scanner = [] {
    auto s = secrets::LoadSecretScanner(seragen::testing::SourcePath("configs/secret_rules.yaml"), {});
    SERAGEN_FUZZ_CHECK(s.ok());
    return new secrets::SecretScanner(std::move(s).value());
  }();
  return *scanner;
}

const std::vector<testing::FakeSecret>& Fakes() {
  static const auto* fakes = new std::vector<testing::FakeSecret>(testing::FakeSecrets(3));
  return *fakes;
}

// Splices marker `op` at data[i]; returns the bytes consumed.
std::size_t Splice(const std::uint8_t* data, std::size_t size, std::size_t i, Input& in) {
  std::size_t args = data[i] == 1 ? 1 : data[i] == 2 ? 2 : 3;
  if (i + args >= size) return 1;
  const testing::FakeSecret& fake = Fakes()[data[i + 1] % Fakes().size()];
  std::string text = fake.text;
  if (data[i] == 1) in.whole_secrets.push_back(fake.secret);
  if (data[i] == 2) text.resize(data[i + 2] % (text.size() + 1));
  if (data[i] == 3) text[data[i + 2] % text.size()] = static_cast<char>(data[i + 3]);
  in.fields.back() += text;
  return args + 1;
}

Input Decode(const std::uint8_t* data, std::size_t size) {
  Input in;
  for (std::size_t i = 0; i < size;) {
    if (data[i] >= 1 && data[i] <= 3) {
      i += Splice(data, size, i, in);
    } else if (data[i] == 0x1e) {
      in.fields.emplace_back();
      ++i;
    } else {
      in.fields.back() += static_cast<char>(data[i++]);
    }
  }
  return in;
}

void CheckHits(const Input& in, const secrets::RowScan& scan) {
  SERAGEN_FUZZ_CHECK(scan.redacted.size() == (scan.clean() ? 0 : in.fields.size()));
  for (std::size_t i = 0; i < scan.hits.size(); ++i) {
    const secrets::SecretHit& h = scan.hits[i];
    SERAGEN_FUZZ_CHECK(h.field < in.fields.size());
    SERAGEN_FUZZ_CHECK(h.begin < h.end && h.end <= in.fields[h.field].size());
    SERAGEN_FUZZ_CHECK(h.hash8.size() == 8);
    SERAGEN_FUZZ_CHECK(IsValidUtf8(h.context));
    SERAGEN_FUZZ_CHECK(h.context.find('\n') == std::string::npos);
    if (i > 0) {
      const secrets::SecretHit& p = scan.hits[i - 1];
      SERAGEN_FUZZ_CHECK(p.field < h.field || (p.field == h.field && p.end <= h.begin));
    }
  }
}

bool Covered(const std::string& secret, const Input& in, const secrets::RowScan& scan) {
  for (const secrets::SecretHit& h : scan.hits) {
    if (in.fields[h.field].compare(h.begin, h.end - h.begin, secret) == 0) return true;
  }
  return false;
}

void CheckNothingLeaks(const Input& in, const secrets::RowScan& scan) {
  for (const std::string& secret : in.whole_secrets) {
    if (secret.size() < secrets::kMinSweptSecretBytes || !Covered(secret, in, scan)) continue;
    for (const std::string& text : scan.redacted) SERAGEN_FUZZ_CHECK(text.find(secret) == std::string::npos);
    for (const secrets::SecretHit& h : scan.hits) SERAGEN_FUZZ_CHECK(h.context.find(secret) == std::string::npos);
  }
}

}  // namespace

int FuzzSecretScanner(const std::uint8_t* data, std::size_t size) {
  Input in = Decode(data, size);
  std::vector<std::string_view> views(in.fields.begin(), in.fields.end());
  secrets::RowScan scan = Scanner().ScanRow(views);
  CheckHits(in, scan);
  CheckNothingLeaks(in, scan);
  return 0;
}

}  // namespace seragen::fuzz
