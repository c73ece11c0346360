// `seragen env check` over a src-layout Python package that cannot be imported
// until it is installed: the environment's setup makes a venv and an editable
// install (no network); the check imports the package from the working copy.
#include <catch2/catch.hpp>

#include <filesystem>

#include "integration/pipeline/harness.h"
#include "testing/temp_dir.h"

namespace seragen::e2e {
namespace {

// The sandbox uids must reach the cache (as for working copies).
void MakeSrcLayoutPackage(const std::string& path) {
  std::filesystem::permissions(std::filesystem::path(path).parent_path(), std::filesystem::perms::others_exec,
                               std::filesystem::perm_options::add);
  const std::string script =
      "set -e; mkdir -p " + path + "/src/envdemo && cd " + path +
      " && printf 'def start():\\n    return 42\\n' > src/envdemo/__init__.py"
      " && printf '[build-system]\\nrequires = [\"setuptools\"]\\nbuild-backend = \"setuptools.build_meta\"\\n"
      "[project]\\nname = \"envdemo\"\\nversion = \"0.1\"\\n[tool.setuptools.packages.find]\\nwhere = [\"src\"]\\n'"
      " > pyproject.toml && git init -q -b main . && git -c user.name=t -c user.email=t@example.invalid add -A"
      " && git -c user.name=t -c user.email=t@example.invalid commit -qm init";
  REQUIRE(testing::RunShell(script) == 0);
}

std::string Config(const testing::TempDir& dir, const std::string& environment) {
  dir.Write("config.yaml", "run: {dir: '" + dir.Sub("run") + "'}\nrepos: [{name: envdemo, source: '" + dir.Sub("repo") +
                               "'}]\nllm: {model: m, endpoints: [{base_url: 'http://127.0.0.1:9/v1'}]}\n"
                               "environment:\n  cache_dir: '" +
                               dir.Sub("cache") +
                               "'\n  check: python3 -c \"import envdemo; print('start', envdemo.start(), "
                               "envdemo.__file__)\"\n" +
                               environment);
  return dir.Sub("config.yaml");
}

const char* kPythonSetup =
    "  setup:\n"
    "    - python3 -m venv --system-site-packages /env\n"
    "    - /env/bin/pip install --no-build-isolation --no-index -e /repo\n"
    "  env: {PATH: /env/bin:/usr/bin:/bin}\n";

TEST_CASE("env check imports an editable install from /repo only with the environment", "[e2e][env]") {
  testing::TempDir dir;
  MakeSrcLayoutPackage(dir.Sub("repo"));
  std::string out;
  int rc = testing::RunShell(Binary() + " env check -c " + Config(dir, "") + " 2>&1", &out);
  INFO(out);
  CHECK(rc != 0);
  CHECK(out.find("ModuleNotFoundError: No module named 'envdemo'") != std::string::npos);

  rc = testing::RunShell(Binary() + " env check -c " + Config(dir, kPythonSetup) + " 2>&1", &out);
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(out.find("start 42 /repo/src/envdemo/__init__.py") != std::string::npos);
  CHECK(out.find("mount: /env <- " + dir.Sub("cache") + "/") != std::string::npos);
  CHECK(out.find("(read-only)") != std::string::npos);
  std::string log;
  REQUIRE(testing::RunShell("cat " + dir.Sub("run/env") + "/envdemo-*.log", &log) == 0);
  CHECK(log.find("$ /env/bin/pip install --no-build-isolation --no-index -e /repo") != std::string::npos);

  // Second time: the cached prefix is reused, no setup command runs.
  std::filesystem::remove_all(dir.Sub("run/env"));
  rc = testing::RunShell(Binary() + " env check -c " + Config(dir, kPythonSetup) + " 2>&1", &out);
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(out.find("start 42 /repo/src/envdemo/__init__.py") != std::string::npos);
  CHECK(testing::RunShell("ls " + dir.Sub("run/env") + "/envdemo-*.log 2>/dev/null") != 0);
}

TEST_CASE("env check reports a failing setup command with its log", "[e2e][env]") {
  testing::TempDir dir;
  MakeSrcLayoutPackage(dir.Sub("repo"));
  std::string out;
  int rc = testing::RunShell(
      Binary() + " env check -c " + Config(dir, "  setup: ['echo building; exit 7']\n") + " 2>&1", &out);
  INFO(out);
  CHECK(rc == 1);
  CHECK(out.find("environment setup of repository 'envdemo' failed") != std::string::npos);
  CHECK(out.find("`echo building; exit 7` exited with status 7") != std::string::npos);
  CHECK(out.find(dir.Sub("run/env") + "/envdemo-") != std::string::npos);
}

TEST_CASE("env check names an image that is missing or not an image", "[e2e][env]") {
  testing::TempDir dir;
  MakeSrcLayoutPackage(dir.Sub("repo"));
  std::string out;
  int rc = testing::RunShell(
      Binary() + " env check -c " + Config(dir, "  image: '" + dir.Sub("missing.tar") + "'\n") + " 2>&1", &out);
  INFO(out);
  CHECK(rc == 1);
  CHECK(out.find("the environment image of repository 'envdemo' is unusable: image " + dir.Sub("missing.tar")) !=
        std::string::npos);

  dir.Write("not-an-image.tar", "plain text\n");
  rc = testing::RunShell(
      Binary() + " env check -c " + Config(dir, "  image: '" + dir.Sub("not-an-image.tar") + "'\n") + " 2>&1", &out);
  INFO(out);
  CHECK(rc == 1);
  CHECK(out.find("skopeo cannot read it as an image (docker-archive:" + dir.Sub("not-an-image.tar")) !=
        std::string::npos);
  CHECK(testing::RunShell("ls -d " + dir.Sub("cache/images") + "/*.tmp-* 2>/dev/null") != 0);
}

}  // namespace
}  // namespace seragen::e2e
