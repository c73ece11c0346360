#include "seragen/env/profile.h"

#include <unistd.h>

#include <catch2/catch.hpp>

#include "testing/temp_dir.h"

namespace seragen::env {
namespace {

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string Joined(const std::vector<std::string>& commands) {
  std::string out;
  for (const std::string& c : commands) out += c + "\n";
  return out;
}

// The profile of a repository holding `files` (path, content).
std::optional<Profile> DetectIn(const testing::TempDir& repo, std::vector<std::pair<std::string, std::string>> files,
                                const ProfileOptions& options = {}) {
  for (const auto& [path, content] : files) repo.Write(path, content);
  return DetectProfile(repo.path(), options);
}

TEST_CASE("python profile: a src layout with setup.cfg, test requirements and tests", "[env]") {
  testing::TempDir repo;
  std::optional<Profile> p =
      DetectIn(repo, {{"setup.py", "from setuptools import setup\nsetup(name='Flask')\n"},
                      {"setup.cfg", "[metadata]\nname = Flask\n\n[options]\npackage_dir = = src\n"},
                      {"requirements/tests.txt", "pytest==7.1.2\n"},
                      {"src/flask/__init__.py", ""},
                      {"src/alpha/__init__.py", ""},
                      {"tests/test_basic.py", "def test_x(): pass\n"}});
  REQUIRE(p.has_value());
  CHECK(p->name == "python");
  CHECK(p->detected_from == "setup.py, setup.cfg");
  REQUIRE(p->setup.size() == 2);
  CHECK(p->setup[0] == "python3 -m venv --system-site-packages /env");
  // Online: editable with the test requirements; offline: no index, no
  // dependency resolution, and a .pth to the sources as the last resort.
  CHECK(Contains(p->setup[1], "/env/bin/pip install --retries 1 --timeout 15 -e '.' -r requirements/tests.txt || {"));
  CHECK(Contains(p->setup[1], "/env/bin/pip install --no-index --no-deps --no-build-isolation -e . ||"));
  CHECK(Contains(p->setup[1], ".write('/repo/src\\n')"));
  CHECK(p->env.at("PATH") == "/env/bin:/usr/local/bin:/usr/bin:/bin");
  // The project's own package first (by its name, not alphabetically).
  CHECK(p->own_modules == std::vector<std::string>{"flask", "alpha"});
  CHECK(Contains(p->check, "import sys, flask;"));
  CHECK(Contains(p->check, "f.startswith('/repo/')"));
  CHECK(Contains(p->check, "&& python -m pytest --collect-only -qq -p no:cacheprovider"));
  CHECK(p->test_command == "python -m pytest -q -p no:cacheprovider");
  CHECK(p->test_report == TestReport::kJUnitXml);
}

TEST_CASE("python profile: pyproject with a test extra and a flat layout", "[env]") {
  testing::TempDir repo;
  repo.Write("pyproject.toml",
             "[project]\nname = \"my-lib\"\n\n[project.optional-dependencies]\ndocs = [\"x\"]\ntest = [\"pytest\"]\n");
  std::optional<Profile> p =
      DetectIn(repo, {{"aaa/__init__.py", ""}, {"my_lib/__init__.py", ""}, {"docs/__init__.py", ""}},
               ProfileOptions{"/work", "/venv"});
  REQUIRE(p.has_value());
  CHECK(p->own_modules == std::vector<std::string>{"my_lib", "aaa"});
  CHECK(Contains(p->setup[1], "/venv/bin/pip install --retries 1 --timeout 15 -e '.[test]' ||"));
  CHECK(Contains(p->setup[1], ".write('/work\\n')"));
  CHECK(Contains(p->check, "f.startswith('/work/')"));
  // No tests directory, no pytest configuration: no test command, no collection.
  CHECK(p->test_command.empty());
  CHECK_FALSE(Contains(p->check, "pytest"));
}

TEST_CASE("python profile: requirements.txt and a module at the root", "[env]") {
  testing::TempDir repo;
  std::optional<Profile> p = DetectIn(repo, {{"requirements.txt", "requests\n"},
                                             {"app.py", "def main(): pass\n"},
                                             {"setup_helpers.py", ""},
                                             {"conftest.py", ""}});
  REQUIRE(p.has_value());
  CHECK(p->detected_from == "requirements.txt");
  CHECK(p->own_modules == std::vector<std::string>{"app", "setup_helpers"});
  // Nothing to install: the source on the path, then the requirements when an index answers.
  CHECK(p->setup[1].starts_with("/env/bin/python -c \"import sysconfig;"));
  CHECK(Contains(p->setup[1], "&& { /env/bin/pip install --retries 1 --timeout 15 -r requirements.txt ||"));
  CHECK_FALSE(Contains(p->setup[1], "-e"));
  CHECK(p->test_command == "python -m pytest -q -p no:cacheprovider");
}

TEST_CASE("node profile: npm ci with a lockfile, npm install without one", "[env]") {
  testing::TempDir repo;
  std::optional<Profile> p = DetectIn(
      repo, {{"package.json", R"({"name":"express","main":"index.js","scripts":{"test":"mocha --reporter spec"}})"},
             {"package-lock.json", "{}"},
             {"index.js", "module.exports = 1;\n"}});
  REQUIRE(p.has_value());
  CHECK(p->name == "node");
  CHECK(p->detected_from == "package.json, package-lock.json");
  CHECK(Joined(p->setup) ==
        "cp package.json package-lock.json /env/ && cd /env && npm ci --ignore-scripts --no-audit --no-fund\n");
  CHECK(p->env.at("NODE_PATH") == "/env/node_modules");
  CHECK(p->check == "node -e \"require('/repo'); console.log('/repo loads')\"");
  CHECK(p->test_command == "npm test");
  CHECK(p->own_modules == std::vector<std::string>{"express"});

  testing::TempDir bare;
  bare.Write("package.json",
             R"({"name":"esm","type":"module","scripts":{"test":"echo \"Error: no test specified\""}})");
  p = DetectProfile(bare.path());
  REQUIRE(p.has_value());
  CHECK(Joined(p->setup) == "cp package.json /env/ && cd /env && npm install --ignore-scripts --no-audit --no-fund\n");
  CHECK(p->check == "npm ls --prefix /env --depth=0");  // an ES module is not loaded through NODE_PATH
  CHECK(p->test_command.empty());
}

TEST_CASE("node profile: a damaged package.json still gives the install", "[env]") {
  testing::TempDir repo;
  std::optional<Profile> p = DetectIn(repo, {{"package.json", "{ not json"}});
  REQUIRE(p.has_value());
  CHECK(p->name == "node");
  CHECK(p->test_command.empty());
  CHECK(p->own_modules.empty());
}

TEST_CASE("go profile: module download into the prefix, go test with JSON", "[env]") {
  testing::TempDir repo;
  std::optional<Profile> p =
      DetectIn(repo, {{"go.mod", "// comment\nmodule github.com/acme/widget\n\ngo 1.21\n"}, {"go.sum", ""}});
  REQUIRE(p.has_value());
  CHECK(p->name == "go");
  CHECK(p->detected_from == "go.mod, go.sum");
  CHECK(p->setup == std::vector<std::string>{"go mod download"});
  CHECK(p->env.at("GOMODCACHE") == "/env/go/mod");
  CHECK(p->env.at("GOCACHE") == "/tmp/go-build");  // rollouts see the prefix read-only
  CHECK(p->test_command == "go test ./...");
  CHECK(p->test_report == TestReport::kGoJson);
  CHECK(p->own_modules == std::vector<std::string>{"github.com/acme/widget"});
}

TEST_CASE("rust profile: cargo fetch into the prefix, offline afterwards", "[env]") {
  testing::TempDir repo;
  std::optional<Profile> p = DetectIn(
      repo, {{"Cargo.toml", "[package]\nname = \"ripgrep\"\nversion = \"1.0.0\"\n\n[dependencies]\nname = \"x\"\n"}});
  REQUIRE(p.has_value());
  CHECK(p->name == "rust");
  CHECK(p->setup == std::vector<std::string>{"mkdir -p /env/cargo && CARGO_NET_OFFLINE=false cargo fetch"});
  CHECK(p->env.at("CARGO_NET_OFFLINE") == "true");
  CHECK(p->env.at("CARGO_TARGET_DIR") == "/tmp/target");
  CHECK(p->test_command == "cargo test");
  CHECK(p->own_modules == std::vector<std::string>{"ripgrep"});
}

TEST_CASE("profiles: python wins over a package.json, nothing known gives none", "[env]") {
  testing::TempDir repo;
  std::optional<Profile> p =
      DetectIn(repo, {{"package.json", R"({"name":"docs-tooling"})"}, {"pyproject.toml", "[project]\nname = \"x\"\n"}});
  REQUIRE(p.has_value());
  CHECK(p->name == "python");

  testing::TempDir plain;
  plain.Write("README.md", "hello\n");
  CHECK_FALSE(DetectProfile(plain.path()).has_value());
}

TEST_CASE("profiles: a marker that is a symbolic link is not read", "[env]") {
  testing::TempDir repo;
  repo.Write("real/go.mod", "module secret\n");
  REQUIRE(::symlink((repo.path() + "/real/go.mod").c_str(), (repo.path() + "/go.mod").c_str()) == 0);
  CHECK_FALSE(DetectProfile(repo.path()).has_value());
}

}  // namespace
}  // namespace seragen::env
