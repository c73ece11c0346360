#include <catch2/catch.hpp>
#include <set>

#include "secrets/entropy.h"
#include "secrets/shipped_scanner.h"
#include "seragen/base/file_util.h"
#include "seragen/secrets/action.h"
#include "seragen/secrets/rules.h"
#include "testing/source_paths.h"

namespace seragen::secrets {
namespace {

std::string Error(std::string_view yaml) {
  auto rules = ParseSecretRules(yaml, "rules.yaml");
  REQUIRE_FALSE(rules.ok());
  return rules.status().message();
}

TEST_CASE("the shipped rules file parses and covers every family", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  std::set<std::string> families;
  for (const SecretRule& r : scanner.rules()) families.insert(r.family);
  for (const char* f : {"aws", "gcp", "azure", "github", "gitlab", "npm", "pypi", "slack", "discord", "stripe",
                        "openai", "anthropic", "jwt", "private-key", "connection-string", "generic"}) {
    INFO(f);
    CHECK(families.count(f) == 1);
  }
}

TEST_CASE("rules file errors name the file, the rule and what is wrong", "[secrets]") {
  CHECK(Error("rules: [{name: a, family: f}]") == "rules.yaml: rule 0 (a): pattern is missing or empty");
  CHECK(Error("rules: [{name: Bad Name, family: f, pattern: x}]") ==
        "rules.yaml: rule 0 (Bad Name): name must be 1-64 of [a-z0-9-]");
  CHECK(
      Error("rules: [{name: a, family: f, pattern: 'x('}]").find("rules.yaml: rule 0 (a): pattern does not compile") ==
      0);
  CHECK(Error("rules: [{name: a, family: f, pattern: 'x', group: 1}]") ==
        "rules.yaml: rule 0 (a): group 1 but the pattern has 0 capture groups");
  CHECK(Error("rules: [{name: a, family: f, pattern: x}, {name: a, family: f, pattern: y}]") ==
        "rules.yaml: rule 1 (a): duplicate name");
  CHECK(Error("rules: [{name: a, family: f, pattern: x, colour: red}]") ==
        "rules.yaml: rule 0 (a): unknown key 'colour'");
  CHECK(Error("rules: [{name: a, family: f, pattern: x, min_entropy: lots}]").find("rule 0 (a): wrong type") !=
        std::string::npos);
  CHECK(Error("rules: [{name: a, family: f, pattern: x, keywords: ['']}]") ==
        "rules.yaml: rule 0 (a): keywords must be 1-64 bytes each");
  CHECK(Error("rules: 3") == "rules.yaml: expected a mapping with a list 'rules'");
  CHECK(Error("rules: [").find("rules.yaml: ") == 0);
}

TEST_CASE("a rule with keywords, entropy and mixed parses", "[secrets]") {
  auto rules = ParseSecretRules(
      "rules:\n  - {name: r-1, family: f, pattern: 'k=(\\w+)', group: 1, keywords: [k=], min_entropy: 3.5, mixed: "
      "true}\n",
      "t");
  REQUIRE(rules.ok());
  REQUIRE(rules->size() == 1);
  CHECK(rules->at(0).secret_group == 1);
  CHECK(rules->at(0).keywords == std::vector<std::string>{"k="});
  CHECK(rules->at(0).min_entropy == 3.5);
  CHECK(rules->at(0).mixed);
}

TEST_CASE("secret actions parse from their config names", "[secrets]") {
  CHECK(ParseSecretAction("redact").value() == SecretAction::kRedact);
  CHECK(ParseSecretAction("drop").value() == SecretAction::kDrop);
  CHECK(ParseSecretAction("report").value() == SecretAction::kReport);
  auto bad = ParseSecretAction("mask");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() == "export.secrets.action: expected redact, drop or report, got 'mask'");
}

TEST_CASE("entropy: uniform bytes score log2 of the alphabet", "[secrets]") {
  CHECK(ShannonBitsPerByte("") == 0);
  CHECK(ShannonBitsPerByte("aaaa") == 0);
  CHECK(ShannonBitsPerByte("abcd") == Approx(2.0));
  CHECK(ShannonBitsPerByte("0123456789abcdef") == Approx(4.0));
  CHECK(HasLetterAndDigit("a1"));
  CHECK_FALSE(HasLetterAndDigit("abc"));
  CHECK_FALSE(HasLetterAndDigit("123"));
}

// A pattern as docs/SECRETS.md's table shows it: '|' escaped for Markdown.
std::string TableCell(const std::string& pattern) {
  std::string out;
  for (char c : pattern) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

TEST_CASE("docs/SECRETS.md lists every shipped rule with its pattern", "[secrets]") {
  auto doc = ReadFile(seragen::testing::SourcePath("docs/SECRETS.md"));
  REQUIRE(doc.ok());
  SecretScanner scanner = testing::ShippedScanner();
  for (const SecretRule& r : scanner.rules()) {
    INFO(r.name);
    CHECK(doc->find("| `" + r.name + "` | " + r.family + " | `" + TableCell(r.pattern) + "` |") != std::string::npos);
  }
}

TEST_CASE("LoadSecretScanner names a missing rules file", "[secrets]") {
  auto scanner = LoadSecretScanner("/nonexistent/secret_rules.yaml", {});
  REQUIRE_FALSE(scanner.ok());
  CHECK(scanner.status().message().find("/nonexistent/secret_rules.yaml") != std::string::npos);
}

}  // namespace
}  // namespace seragen::secrets
