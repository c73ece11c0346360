// Runs the real seragen binary: exit codes and messages of `config` and basics.
#include <catch2/catch.hpp>

#include "cli/cli_test_util.h"
#include "config/config_test_util.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen {
namespace {

using testing::RunSeragen;

std::string Quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace

TEST_CASE("version and help flags succeed", "[cli]") {
  std::string out;
  CHECK(RunSeragen("--version", &out) == 0);
  CHECK(out.rfind("seragen ", 0) == 0);
  // An uninstalled build/seragen reads the checkout's data.
  CHECK(out.find("data: " + seragen::testing::SourceDir() + " (source tree)") != std::string::npos);
  CHECK(RunSeragen("--help", &out) == 0);
  CHECK(out.find("Exit codes") != std::string::npos);
  CHECK(out.find("3 run finished but some tasks failed") != std::string::npos);
  CHECK(out.find("75 run interrupted") != std::string::npos);
  CHECK(RunSeragen("config --help", &out) == 0);
  CHECK(out.find("show") != std::string::npos);
  CHECK(RunSeragen("config show --help", &out) == 0);
  CHECK(out.find("--set") != std::string::npos);
}

TEST_CASE("usage errors exit 2", "[cli]") {
  std::string out;
  CHECK(RunSeragen("", &out) == 2);
  CHECK(RunSeragen("no-such-command", &out) == 2);
  CHECK(RunSeragen("config show", &out) == 2);  // -c missing
  CHECK(out.find("--config") != std::string::npos);
  CHECK(RunSeragen("config show -c /nonexistent/seragen.yaml", &out) == 2);
  CHECK(out.find("/nonexistent/seragen.yaml") != std::string::npos);
}

TEST_CASE("every bad config exits 2 and names the problem", "[cli]") {
  auto corpus = testing::LoadBadConfigCorpus();
  REQUIRE(corpus.size() >= 20);
  for (const auto& c : corpus) {
    std::string args = "config show -c " + Quote(c.path);
    for (const auto& o : c.overrides) args += " --set " + Quote(o);
    std::string out;
    INFO(c.path);
    CHECK(RunSeragen(args, &out) == 2);
    INFO(out);
    CHECK(out.find(c.expect) != std::string::npos);
    CHECK(out.find("sk-live") == std::string::npos);
  }
}

TEST_CASE("config show prints the resolved config with hashes and no secrets", "[cli]") {
  testing::TempDir dir;
  dir.Write("c.yaml",
            "repos: [{source: ./repo}]\n"
            "llm:\n  endpoints: [{base_url: 'http://127.0.0.1:9/v1'}]\n  api_key: ${SERAGEN_CLI_TEST_KEY}\n");
  std::string out;
  REQUIRE(RunSeragen("config show -c " + dir.Sub("c.yaml") + " --set agent.max_steps=9", &out) == 0);
  CHECK(out.find("# config_hash: ") != std::string::npos);
  CHECK(out.find("max_steps: 9") != std::string::npos);
  CHECK(out.find("source: " + dir.Sub("repo")) != std::string::npos);
  CHECK(out.find("api_key: ${SERAGEN_CLI_TEST_KEY}") != std::string::npos);
}

TEST_CASE("config show prints each repository's effective environment", "[cli]") {
  testing::TempDir dir;
  dir.Write("c.yaml",
            "repos: [{name: a, source: ./a}, {name: b, source: ./b, environment: {setup: ['make own-setup']}}]\n"
            "environment: {setup: ['make inherited-setup'], test_command: 'pytest -q'}\n"
            "llm:\n  endpoints: [{base_url: 'http://127.0.0.1:9/v1'}]\n");
  std::string out;
  REQUIRE(RunSeragen("config show -c " + dir.Sub("c.yaml"), &out) == 0);
  INFO(out);
  auto count = [&out](const std::string& part) {
    std::size_t n = 0;
    for (std::size_t pos = out.find(part); pos != std::string::npos; pos = out.find(part, pos + 1)) ++n;
    return n;
  };
  CHECK(count("make inherited-setup") == 2);  // run-wide, and repository a that inherits it
  CHECK(count("make own-setup") == 1);
  CHECK(count("pytest -q") == 2);
}

}  // namespace seragen
