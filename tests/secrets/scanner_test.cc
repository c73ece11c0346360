#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>

#include "secrets/shipped_scanner.h"
#include "seragen/base/hash.h"
#include "seragen/base/utf8.h"
#include "testing/fake_secrets.h"

namespace seragen::secrets {
namespace {

using seragen::testing::FakeSecret;
using seragen::testing::FakeSecrets;

RowScan Scan(const SecretScanner& s, const std::vector<std::string>& fields) {
  std::vector<std::string_view> views(fields.begin(), fields.end());
  return s.ScanRow(views);
}

std::string Hash8(const std::string& secret) { return Sha256Hex(secret).substr(0, 8); }

// The first fake secret of `rule`.
FakeSecret FakeFor(const std::string& rule, std::uint64_t seed = 1) {
  for (FakeSecret& f : FakeSecrets(seed)) {
    if (f.rule == rule) return f;
  }
  throw std::runtime_error("no fake secret for " + rule);
}

TEST_CASE("one fake secret per rule: found by its rule, redacted, never kept", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  std::set<std::string> covered;
  for (const FakeSecret& fake : FakeSecrets()) {
    INFO(fake.rule << ": " << fake.text);
    RowScan scan = Scan(scanner, {"before", fake.text});
    REQUIRE(scan.hits.size() == 1);
    const SecretHit& hit = scan.hits[0];
    CHECK(hit.rule == fake.rule);
    CHECK(hit.field == 1);
    CHECK(fake.text.substr(hit.begin, hit.end - hit.begin) == fake.secret);
    CHECK(hit.hash8 == Hash8(fake.secret));
    REQUIRE(scan.redacted.size() == 2);
    CHECK(scan.redacted[0] == "before");
    CHECK(scan.redacted[1].find(fake.secret) == std::string::npos);
    CHECK(scan.redacted[1].find(Placeholder(fake.rule, hit.hash8)) != std::string::npos);
    CHECK(hit.context.find(fake.secret) == std::string::npos);
    CHECK(hit.context.find("<REDACTED:" + fake.rule) != std::string::npos);
    CHECK(IsValidUtf8(hit.context));
    covered.insert(fake.rule);
  }
  std::set<std::string> all;
  for (const SecretRule& r : scanner.rules()) all.insert(r.name);
  CHECK(covered == all);
}

TEST_CASE("every fake secret in one row: all found, all redacted", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  std::vector<std::string> fields;
  for (const FakeSecret& fake : FakeSecrets(7)) fields.push_back("$ cat .env\n" + fake.text + "\nok");
  RowScan scan = Scan(scanner, fields);
  CHECK(scan.hits.size() == fields.size());
  std::vector<FakeSecret> fakes = FakeSecrets(7);
  for (std::size_t i = 0; i < fakes.size(); ++i) {
    INFO(fakes[i].rule);
    CHECK(scan.redacted[i].find(fakes[i].secret) == std::string::npos);
  }
}

TEST_CASE("the same secret gets the same placeholder across the row, also where no rule fires", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  const FakeSecret github = FakeFor("aws-secret-access-key");  // found only in assignment context
  std::vector<std::string> row = {"$ cat settings.py\n" + github.text, "I will reuse " + github.secret + " below.",
                                  "echo " + github.secret + " | base64; then " + github.secret};
  RowScan scan = Scan(scanner, row);
  REQUIRE(scan.hits.size() == 4);
  std::string placeholder = Placeholder("aws-secret-access-key", Hash8(github.secret));
  CHECK(scan.redacted[0] == "$ cat settings.py\nAWS_SECRET_ACCESS_KEY=\"" + placeholder + "\"\n");
  CHECK(scan.redacted[1] == "I will reuse " + placeholder + " below.");
  CHECK(scan.redacted[2] == "echo " + placeholder + " | base64; then " + placeholder);
  for (const SecretHit& h : scan.hits) CHECK(h.rule == "aws-secret-access-key");
}

TEST_CASE("different secrets get different placeholders", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  auto a = FakeFor("github-token", 1);
  auto b = FakeFor("github-token", 2);
  RowScan scan = Scan(scanner, {a.text + b.text});
  REQUIRE(scan.hits.size() == 2);
  CHECK(scan.hits[0].hash8 != scan.hits[1].hash8);
  CHECK(scan.hits[0].begin < scan.hits[1].begin);
}

TEST_CASE("allow-listed secrets pass: exact strings and re: patterns", "[secrets]") {
  std::vector<FakeSecret> fakes = FakeSecrets();
  REQUIRE(fakes[0].rule == "aws-access-key-id");
  REQUIRE(fakes[1].rule == "aws-access-key-id");
  auto scanner = testing::ShippedScanner({fakes[0].secret, "re:^gh[p]_"});
  CHECK(Scan(scanner, {fakes[0].text}).clean());
  CHECK(Scan(scanner, {FakeFor("github-token").text}).clean());  // by pattern
  CHECK_FALSE(Scan(scanner, {fakes[1].text}).clean());           // another AWS key id still found
  auto bad = SecretScanner::Create({}, {"ok", "re:("});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("export.secrets.allow[1]: regex does not compile") == 0);
}

TEST_CASE("secrets inside invalid UTF-8 and NUL bytes are found, not skipped", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  auto fake = FakeFor("github-token");
  std::string text = std::string("\xff\xfe\xc3(\0bin", 8) + fake.text + std::string("\xed\xa0\x80\0", 4);
  RowScan scan = Scan(scanner, {text});
  REQUIRE(scan.hits.size() == 1);
  CHECK(scan.redacted[0].find(fake.secret) == std::string::npos);
  CHECK(scan.redacted[0].substr(0, 8) == text.substr(0, 8));  // other bytes untouched
  CHECK(IsValidUtf8(scan.hits[0].context));
}

TEST_CASE("a clean row has no hits and no copies", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  RowScan scan = Scan(scanner, {"def add(a, b):\n    return a + b\n", ""});
  CHECK(scan.clean());
  CHECK(scan.redacted.empty());
  CHECK(Scan(scanner, {}).clean());
}

TEST_CASE("a truncated private key loses its body too", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  auto fake = FakeFor("private-key-block");
  std::string head = fake.secret.substr(0, fake.secret.size() / 2);
  RowScan scan = Scan(scanner, {"$ head -4 id_rsa\n" + head});
  REQUIRE(scan.hits.size() == 1);
  CHECK(scan.redacted[0] == "$ head -4 id_rsa\n" + Placeholder("private-key-block", Hash8(head)));
}

TEST_CASE("a row with 600 distinct keys: all redacted, echoes of the first ones too", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  std::string config;
  std::vector<std::string> keys;
  for (std::uint64_t i = 0; i < 600; ++i) {
    keys.push_back(
        seragen::testing::RandomChars(i, 40, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"));
    config += "aws_secret_access_key = " + keys.back() + "\n";
  }
  // The bare echo has no assignment context: only the sweep of found secrets replaces it.
  RowScan scan = Scan(scanner, {config, "the first key was " + keys[0] + "!"});
  CHECK(scan.hits.size() == 601);
  for (const std::string& key : keys) REQUIRE(scan.redacted[0].find(key) == std::string::npos);
  CHECK(scan.redacted[1] == "the first key was " + Placeholder("aws-secret-access-key", Hash8(keys[0])) + "!");
}

TEST_CASE("weak values in assignment context are not flagged", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  CHECK(Scan(scanner, {"password = \"password\"", "token = get_token()", "api_key = os.environ['API_KEY']",
                       "SECRET_KEY = settings.SECRET_KEY_FALLBACK_VALUE", "token: ${GITHUB_TOKEN}"})
            .clean());
}

}  // namespace
}  // namespace seragen::secrets

namespace seragen::secrets {
namespace {

// Distinct AWS-key-id-shaped strings, one per line.
std::string ManyKeys(std::size_t n, std::vector<std::string>* keys) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    std::string key = "AKIA" + seragen::testing::RandomChars(i + 7, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
    keys->push_back(key);
    out += key + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("a row with many hits keeps kMaxKeptHits records, counts every hit and gives each to the sink", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  std::vector<std::string> keys;
  const std::string field = ManyKeys(5000, &keys);
  std::vector<std::string_view> views = {field};
  std::size_t streamed = 0;
  std::set<std::string> hashes;
  RowScan scan = scanner.ScanRow(views, [&](const SecretHit& hit) {
    ++streamed;
    hashes.insert(hit.hash8);
  });
  CHECK(scan.hits.size() == kMaxKeptHits);
  CHECK(scan.hit_count == keys.size());
  CHECK(streamed == keys.size());
  CHECK(scan.hits_by_rule.at("aws-access-key-id") == keys.size());
  CHECK(hashes.size() > keys.size() - 5);  // each key its own hash, interned or not
  REQUIRE(scan.redacted.size() == 1);
  for (const std::string& key : keys) REQUIRE(scan.redacted[0].find(key) == std::string::npos);
  // Past the interning budget a key is hashed on its own: the same hash8.
  const SecretHit& last = scan.hits.back();
  CHECK(last.hash8 == Hash8(keys[kMaxKeptHits - 1]));
}

}  // namespace seragen::secrets
