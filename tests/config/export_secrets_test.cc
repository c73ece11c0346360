// The export.secrets keys (docs/SECRETS.md): defaults, values, and that they
// are operational (the recipe hash ignores them).
#include <catch2/catch.hpp>

#include "seragen/config/loader.h"

namespace seragen::config {
namespace {

const char* kBase = R"(
repos:
  - source: /srv/repos/core
llm:
  endpoints:
    - base_url: http://127.0.0.1:8000/v1
)";

LoadedConfig Load(const std::string& text) {
  auto r = LoadConfigText(text, "/etc/seragen/test.yaml", {});
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

TEST_CASE("export.secrets defaults to redact with no allow-list and the shipped rules", "[config]") {
  LoadedConfig c = Load(kBase);
  CHECK(c.config.export_.secrets.action == "redact");
  CHECK(c.config.export_.secrets.allow.empty());
  CHECK(c.config.export_.secrets.rules_file.empty());
}

TEST_CASE("export.secrets keys are read, and leave the recipe hash alone", "[config]") {
  LoadedConfig base = Load(kBase);
  LoadedConfig c = Load(std::string(kBase) + R"(
export:
  secrets:
    action: drop
    allow: [dummy-key-for-tests, 're:^sk_test_']
    rules_file: rules/secrets.yaml
)");
  CHECK(c.config.export_.secrets.action == "drop");
  CHECK(c.config.export_.secrets.allow == std::vector<std::string>{"dummy-key-for-tests", "re:^sk_test_"});
  CHECK(c.config.export_.secrets.rules_file == "/etc/seragen/rules/secrets.yaml");
  CHECK(c.recipe_hash == base.recipe_hash);
  CHECK(c.config_hash != base.config_hash);
}

}  // namespace
}  // namespace seragen::config
