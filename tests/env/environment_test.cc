#include "seragen/env/environment.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "seragen/base/file_util.h"
#include "testing/temp_dir.h"

namespace seragen::env {
namespace {

// Records the commands it was asked to run; writes a marker into the prefix;
// fails the command equal to `fail_on`.
class FakeSetupRunner final : public SetupRunner {
 public:
  std::vector<std::string> commands;
  std::string fail_on;
  Result<sandbox::CommandResult> Run(const std::string& command, const std::string& prefix_host_dir) override {
    commands.push_back(command);
    std::ofstream(prefix_host_dir + "/marker") << command;
    sandbox::CommandResult r;
    r.exit_code = command == fail_on ? 3 : 0;
    r.output = "ran " + command;
    return r;
  }
};

EnvironmentSpec Spec(const std::string& cache) {
  EnvironmentSpec s;
  s.root_id = "sha256:abc";
  s.setup = {"python3 -m venv /env", "pip install -e /repo"};
  s.env = {{"PATH", "/env/bin:/usr/bin:/bin"}};
  s.cache_dir = cache;
  return s;
}

TEST_CASE("the cache key changes with every input", "[env]") {
  const EnvironmentSpec base = Spec("/c");
  const std::string k = EnvironmentCacheKey(base, "c1");
  CHECK(k == EnvironmentCacheKey(base, "c1"));
  CHECK(k != EnvironmentCacheKey(base, "c2"));
  auto changed = [&](auto edit) {
    EnvironmentSpec s = base;
    edit(s);
    return EnvironmentCacheKey(s, "c1") != k;
  };
  CHECK(changed([](EnvironmentSpec& s) { s.root_id = "sha256:def"; }));
  CHECK(changed([](EnvironmentSpec& s) { s.setup.push_back("true"); }));
  CHECK(changed([](EnvironmentSpec& s) { s.setup = {"python3 -m venv /env pip install -e /repo"}; }));
  CHECK(changed([](EnvironmentSpec& s) { s.env["X"] = "1"; }));
  CHECK(changed([](EnvironmentSpec& s) { s.prefix = "/opt/env"; }));
  CHECK(changed([](EnvironmentSpec& s) { s.setup_network = true; }));
  CHECK_FALSE(changed([](EnvironmentSpec& s) { s.cache_dir = "/elsewhere"; }));
}

TEST_CASE("a prepared prefix is published once and reused without running setup", "[env]") {
  testing::TempDir tmp;
  EnvironmentSpec spec = Spec(tmp.path() + "/cache");
  FakeSetupRunner runner;
  auto first = PrepareEnvironment(spec, "c1", runner, tmp.path() + "/setup.log");
  REQUIRE(first.ok());
  CHECK_FALSE(first->reused);
  CHECK(runner.commands == spec.setup);
  CHECK(ReadFile(first->prefix_dir + "/marker").value() == "pip install -e /repo");
  CHECK(ReadFile(tmp.path() + "/setup.log").value().find("$ python3 -m venv /env\nran python3") != std::string::npos);
  FakeSetupRunner again;
  auto second = PrepareEnvironment(spec, "c1", again, tmp.path() + "/setup2.log");
  REQUIRE(second.ok());
  CHECK(second->reused);
  CHECK(second->prefix_dir == first->prefix_dir);
  CHECK(again.commands.empty());
  auto other_commit = PrepareEnvironment(spec, "c2", again, tmp.path() + "/setup3.log");
  REQUIRE(other_commit.ok());
  CHECK_FALSE(other_commit->reused);
}

TEST_CASE("a failing setup command names itself and the log and publishes nothing", "[env]") {
  testing::TempDir tmp;
  EnvironmentSpec spec = Spec(tmp.path() + "/cache");
  FakeSetupRunner runner;
  runner.fail_on = spec.setup[0];
  const std::string log = tmp.path() + "/setup.log";
  auto r = PrepareEnvironment(spec, "c1", runner, log);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("`python3 -m venv /env` exited with status 3") != std::string::npos);
  CHECK(r.status().message().find(log) != std::string::npos);
  CHECK(runner.commands.size() == 1);
  CHECK(ReadFile(log).value().find("[exited with status 3]") != std::string::npos);
  for (const auto& e : std::filesystem::directory_iterator(spec.cache_dir)) {
    CHECK(e.path().extension() == ".lock");
  }
  runner.fail_on.clear();
  auto retry = PrepareEnvironment(spec, "c1", runner, log);
  REQUIRE(retry.ok());
  CHECK_FALSE(retry->reused);
}

}  // namespace
}  // namespace seragen::env
