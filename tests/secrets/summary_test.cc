#include <catch2/catch.hpp>

#include "secrets/shipped_scanner.h"
#include "seragen/secrets/summary.h"
#include "testing/fake_secrets.h"

namespace seragen::secrets {
namespace {

RowScan ScanOne(const SecretScanner& scanner, const std::string& text) {
  std::string_view view = text;
  return scanner.ScanRow({&view, 1});
}

TEST_CASE("secret summary counts rows by action and hits by rule", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  auto fakes = seragen::testing::FakeSecrets();
  SecretSummary s;
  s.Add(ScanOne(scanner, "nothing here"), SecretAction::kRedact);
  s.Add(ScanOne(scanner, fakes[0].text + fakes[1].text), SecretAction::kRedact);
  s.Add(ScanOne(scanner, fakes[0].text), SecretAction::kDrop);
  s.Add(ScanOne(scanner, fakes[0].text), SecretAction::kReport);
  CHECK(s.rows_scanned == 4);
  CHECK(s.rows_with_hits == 3);
  CHECK(s.rows_redacted == 1);
  CHECK(s.rows_dropped == 1);
  CHECK(s.rows_reported == 1);
  CHECK(s.hits_by_rule == std::map<std::string, std::int64_t>{{"aws-access-key-id", 4}});
  SecretSummary twice = s;
  twice.Merge(s);
  CHECK(twice.rows_scanned == 8);
  CHECK(twice.hits_by_rule.at("aws-access-key-id") == 8);
}

TEST_CASE("secret summary encodes and decodes, bad input is a named error", "[secrets]") {
  SecretSummary s;
  s.rows_scanned = 10;
  s.rows_with_hits = 2;
  s.rows_dropped = 2;
  s.hits_by_rule = {{"jwt", 1}, {"github-token", 3}};
  std::string json = EncodeSecretSummary(s);
  CHECK(json ==
        "{\"rows_scanned\":10,\"rows_with_hits\":2,\"rows_redacted\":0,\"rows_dropped\":2,\"rows_reported\":0,"
        "\"hits_by_rule\":{\"github-token\":3,\"jwt\":1}}");
  auto back = DecodeSecretSummary(json, "summary.json");
  REQUIRE(back.ok());
  CHECK(*back == s);
  auto error = [](std::string_view text) { return DecodeSecretSummary(text, "summary.json").status().message(); };
  CHECK(error("[1]") == "summary.json: expected a JSON object");
  CHECK(error("{\"rows_scanned\": -1}") == "summary.json: rows_scanned: expected a non-negative integer");
  CHECK(error("{\"hits_by_rule\": {\"jwt\": \"many\"}}") ==
        "summary.json: hits_by_rule.jwt: expected a non-negative integer");
  CHECK(error("{\"hits_by_rule\": 3}") == "summary.json: hits_by_rule: expected an object");
  CHECK_FALSE(DecodeSecretSummary(std::string(1000, '[') + std::string(1000, ']'), "summary.json").ok());
}

}  // namespace
}  // namespace seragen::secrets
