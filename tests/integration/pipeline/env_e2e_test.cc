// Execution environments end to end over a src-layout Python package that
// cannot be imported until it is installed: the environment's setup makes a
// venv and an editable install (no network). `seragen env check` imports the
// package from the working copy; `seragen run` with the scripted teacher (a
// stand-in for a model) writes reproduction scripts that import it from /repo
// and runs the repository's tests, and the exported records show that output.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "integration/pipeline/harness.h"
#include "seragen/base/file_util.h"
#include "seragen/journal/journal_reader.h"
#include "testing/temp_dir.h"

namespace seragen::e2e {
namespace {

using nlohmann::json;

// The sandbox uids must reach the cache (as for working copies). Besides
// envdemo.start, a module with two functions that call each other (so the
// call graph selects them) and a test of its own.
void MakeSrcLayoutPackage(const std::string& path) {
  const std::string fill =
      "mkdir -p " + path + "/src/envdemo " + path + "/tests && cd " + path +
      " && printf 'def start():\\n    return 42\\n' > src/envdemo/__init__.py"
      " && printf '%s\\n' 'def normalize(values):' '    \"\"\"Scale values so that they sum to one.\"\"\"'"
      " '    if not values:' '        return []' '    total = sum(values)' '    return [v / total for v in values]' '' "
      "''"
      " 'def top_share(values, limit):' '    \"\"\"The largest shares, at most limit of them.\"\"\"'"
      " '    if limit <= 0:' '        return []' '    shares = sorted(normalize(values), reverse=True)'"
      " '    return shares[:limit]' > src/envdemo/core.py"
      " && printf '%s\\n' 'from envdemo.core import normalize, top_share' '' ''"
      " 'def test_normalize():' '    assert normalize([1, 3]) == [0.25, 0.75]' '' ''"
      " 'def test_top_share():' '    assert top_share([1, 3], 1) == [0.75]' > tests/test_core.py"
      " && printf '[build-system]\\nrequires = [\"setuptools\"]\\nbuild-backend = \"setuptools.build_meta\"\\n"
      "[project]\\nname = \"envdemo\"\\nversion = \"0.1\"\\n[tool.setuptools.packages.find]\\nwhere = [\"src\"]\\n'"
      " > pyproject.toml";
  MakeGitRepo(path, fill, "init");
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

// Every tool message and shell command of the exported openai records of a
// run (T1 and T2), with the number of records read.
struct Exported {
  std::size_t records = 0;
  std::vector<std::string> observations;
  std::vector<std::string> commands;
  std::size_t tests_passed = 0;  // records whose metadata.tests says the last test run passed
};

Exported ReadExport(const std::string& run_dir, const std::string& flags = "") {
  std::string out;
  int rc = testing::RunShell(Binary() + " export " + run_dir + " --format openai " + flags + " 2>&1", &out);
  INFO(out);
  REQUIRE(rc == 0);
  Exported e;
  for (const char* which : {"t1", "t2"}) {
    for (const std::string& line : ReadLines(run_dir + "/data/" + which + ".openai.jsonl")) {
      json rec = json::parse(line);
      ++e.records;
      const json& tests = rec["metadata"]["tests"];
      if (tests.is_object() && tests["passed"] == true) ++e.tests_passed;
      for (const auto& m : rec["messages"]) {
        if (m["role"] == "tool") e.observations.push_back(m["content"].get<std::string>());
        if (m["role"] != "assistant" || !m.contains("tool_calls")) continue;
        for (const auto& c : m["tool_calls"]) {
          if (c["function"]["name"] != "bash") continue;
          e.commands.push_back(json::parse(c["function"]["arguments"].get<std::string>())["command"]);
        }
      }
    }
  }
  return e;
}

std::size_t CountContaining(const std::vector<std::string>& texts, const std::string& needle) {
  return static_cast<std::size_t>(std::count_if(
      texts.begin(), texts.end(), [&](const std::string& t) { return t.find(needle) != std::string::npos; }));
}

const char* kRunEnvironment =
    "environment:\n"
    "  setup:\n"
    "    - python3 -m venv --system-site-packages /env\n"
    "    - /env/bin/pip install --no-build-isolation --no-index -e /repo\n"
    "  env: {PATH: /env/bin:/usr/bin:/bin}\n"
    "  test_command: python3 -m pytest -q\n";

TEST_CASE("run: reproduction scripts import the editable install from /repo and the tests run", "[e2e][env]") {
  testing::TempDir dir;
  MakeSrcLayoutPackage(dir.Sub("repo"));
  TeacherProcess teacher(dir, "--seed 3");
  std::string out;

  // With the environment: the scripts import envdemo from the working copy and pytest runs.
  std::string cfg = WriteConfig(dir, dir.Sub("repo"), teacher.url(),
                                std::string(kRunEnvironment) + "  cache_dir: '" + dir.Sub("cache") + "'\n");
  int rc = testing::RunShell(Binary() + " run -c " + cfg + " 2>&1", &out);
  INFO(out);
  REQUIRE(rc == 0);
  Exported with = ReadExport(dir.Sub("run"));
  REQUIRE(with.records >= 2);
  CHECK(CountContaining(with.commands, "python3 /repo/repro_") >= 2 * with.records);  // before and after the edit
  CHECK(CountContaining(with.observations, "envdemo.core loaded from /repo/src/envdemo/core.py") >= with.records);
  CHECK(CountContaining(with.observations, "ModuleNotFoundError") == 0);
  CHECK(CountContaining(with.commands, "cd /repo && python3 -m pytest -q") >= with.records);
  CHECK(CountContaining(with.observations, "2 passed") >= 1);
  CHECK(with.tests_passed >= 1);  // metadata.tests: the last run of environment.test_command passed
  Exported passed_only = ReadExport(dir.Sub("run"), "--require-tests-passed");
  CHECK(passed_only.records == with.tests_passed);
  std::string log;
  REQUIRE(testing::RunShell("cat " + dir.Sub("run/env") + "/sample-*.log", &log) == 0);
  CHECK(log.find("Successfully installed envdemo") != std::string::npos);

  // Without it: the same reproduction cannot import the package, and the
  // prompts name no test command, so none runs.
  std::filesystem::remove_all(dir.Sub("run"));
  cfg = WriteConfig(dir, dir.Sub("repo"), teacher.url());
  rc = testing::RunShell(Binary() + " run -c " + cfg + " --set run.max_env_broken_share=1 2>&1", &out);
  INFO(out);
  REQUIRE(rc == 0);
  // Every rollout counted its failed imports of envdemo (env_broken).
  REQUIRE(testing::RunShell(Binary() + " status " + dir.Sub("run") + " --json", &out) == 0);
  json health = json::parse(out)["env_health"];
  CHECK(health["rollouts"].get<int>() > 0);
  CHECK(health["env_broken"] == health["rollouts"]);
  Exported env_ok = ReadExport(dir.Sub("run"), "--require-env-ok");
  CHECK(env_ok.records == 0);
  Exported without = ReadExport(dir.Sub("run"));
  REQUIRE(without.records >= 2);
  CHECK(CountContaining(without.commands, "python3 /repo/repro_") >= 2 * without.records);
  CHECK(CountContaining(without.observations, "ModuleNotFoundError: No module named 'envdemo'") >= 2 * without.records);
  CHECK(CountContaining(without.observations, "envdemo.core loaded from") == 0);
  CHECK(CountContaining(without.commands, "pytest") == 0);
}

TEST_CASE("run: a failing setup stops the run before any model call, exit 2, naming profile, log and key",
          "[e2e][env]") {
  testing::TempDir dir;
  MakeSrcLayoutPackage(dir.Sub("broken"));
  MakePythonRepo(dir.Sub("good"));
  TeacherProcess teacher(dir, "--seed 3");
  WriteConfig(dir, dir.Sub("good"), teacher.url());
  std::string yaml = *ReadFile(dir.Sub("config.yaml"));
  const std::string one_repo = "repos: [{name: sample, source: '" + dir.Sub("good") + "'}]\n";
  REQUIRE(yaml.find(one_repo) != std::string::npos);
  yaml.replace(yaml.find(one_repo), one_repo.size(),
               "repos:\n  - {name: good, source: '" + dir.Sub("good") + "'}\n  - name: broken\n    source: '" +
                   dir.Sub("broken") +
                   "'\n    environment: {profile: python, setup: ['echo building; exit 7'], "
                   "cache_dir: '" +
                   dir.Sub("cache") + "'}\n");
  dir.Write("config.yaml", yaml);
  std::string out;
  int rc = testing::RunShell(Binary() + " run -c " + dir.Sub("config.yaml") + " 2>&1", &out);
  INFO(out);
  CHECK(rc == 2);
  CHECK(out.find("the environment of repository 'broken' (profile python) could not be built") != std::string::npos);
  CHECK(out.find("`echo building; exit 7` exited with status 7") != std::string::npos);
  CHECK(out.find("setup log: " + dir.Sub("run/env") + "/broken-") != std::string::npos);
  CHECK(out.find("fix: change environment.setup in " + dir.Sub("config.yaml")) != std::string::npos);
  CHECK(out.find("nothing was sent to the model") != std::string::npos);
  // Not one request reached the model, and no task has a record past planned.
  std::string requests;
  testing::RunShell("cat " + dir.Sub("requests.jsonl") + " 2>/dev/null", &requests);
  CHECK(requests.empty());
  for (const std::string& line : ReadLines(dir.Sub("run/shard-0/journal.jsonl"))) {
    CHECK(line.find("\"stage\":\"rollout") == std::string::npos);
  }
  // The corrected setup is not refused as a config change: nothing ran.
  yaml.replace(yaml.find("'echo building; exit 7'"), std::string("'echo building; exit 7'").size(), "'true'");
  dir.Write("config.yaml", yaml);
  rc = testing::RunShell(Binary() + " run -c " + dir.Sub("config.yaml") + " --set run.max_env_broken_share=1 2>&1",
                         &out);
  INFO(out);
  CHECK(rc == 0);
}

TEST_CASE("run: rollouts that cannot import the repository's code stop the run past the share, exit 2", "[e2e][env]") {
  testing::TempDir dir;
  MakeSrcLayoutPackage(dir.Sub("repo"));
  TeacherProcess teacher(dir, "--seed 3");
  std::string cfg = WriteConfig(dir, dir.Sub("repo"), teacher.url());
  std::string out;
  int rc = testing::RunShell(Binary() + " run -c " + cfg + " --set selection.replicas=4 2>&1", &out);
  INFO(out);
  CHECK(rc == 2);
  CHECK(out.find("rollouts ran a command that could not import the repository's own code (env_broken") !=
        std::string::npos);
  CHECK(out.find("fix: correct environment.setup in " + cfg) != std::string::npos);
}

TEST_CASE("config init writes the python profile and a run imports the package through it, with no edits",
          "[e2e][env]") {
  testing::TempDir dir;
  MakeSrcLayoutPackage(dir.Sub("envdemo"));
  TeacherProcess teacher(dir, "--seed 3");
  const std::string cfg = ConfigInit(dir, dir.Sub("envdemo"), teacher.url());
  const std::string text = *ReadFile(cfg);
  INFO(text);
  std::string out;
  CHECK(text.find("  profile: python\n") != std::string::npos);
  CHECK(text.find("detected from pyproject.toml") != std::string::npos);
  CHECK(text.find("  check: 'python -c \"import sys, envdemo;") != std::string::npos);
  CHECK(text.find("  test_command: 'python -m pytest -q -p no:cacheprovider'") != std::string::npos);
  // No package index here: the setup falls back to the offline install (the
  // network off so that it fails at once; the cache kept out of $HOME).
  // Two functions in one file: the template's held-out share would take them all.
  const std::string sets =
      " --set environment.setup_network=false --set eval.holdout=0 --set environment.cache_dir=" + dir.Sub("cache");
  REQUIRE(testing::RunShell(Binary() + " env check -c " + cfg + sets + " 2>&1", &out) == 0);
  CHECK(out.find("envdemo imported from /repo/src/envdemo/__init__.py") != std::string::npos);
  CHECK(out.find("environment: prepared in ") != std::string::npos);
  CHECK(out.find("; check ran in ") != std::string::npos);
  int rc = testing::RunShell(Binary() + " run -c " + cfg + sets + " 2>&1", &out);
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(out.find("(profile python) is ready") != std::string::npos);
  REQUIRE(testing::RunShell(Binary() + " status " + dir.Sub("runs/envdemo") + " --json", &out) == 0);
  json health = json::parse(out)["env_health"];
  CHECK(health["rollouts"].get<int>() >= 2);
  CHECK(health["env_broken"] == 0);
  Exported e = ReadExport(dir.Sub("runs/envdemo"));
  REQUIRE(e.records >= 1);
  CHECK(CountContaining(e.observations, "envdemo.core loaded from /repo/src/envdemo/core.py") >= e.records);
  CHECK(CountContaining(e.observations, "ModuleNotFoundError") == 0);
}

}  // namespace
}  // namespace seragen::e2e

namespace seragen::e2e {
namespace {

// Both rollouts break normalize() the same way, then "run the tests" with a
// command that cannot fail (`false || : pytest`) and print a passing summary:
// the model's claim. Only seragen's own runs may decide the evidence.
const char* kForgingScript =
    "rollout1: &forge\n"
    "  - tool: bash\n"
    "    arguments: |\n"
    "      {\"command\": \"sed -i 's/return \\\\[v \\\\/ total for v in values\\\\]/return list(values)/' "
    "/repo/src/envdemo/core.py\"}\n"
    "  - tool: bash\n"
    "    arguments: |\n"
    "      {\"command\": \"cd /repo && false || : python3 -m pytest -q && echo '2 passed in 0.01s'\"}\n"
    "  - tool: submit\n"
    "    arguments: '{}'\n"
    "  - tool: submit\n"
    "    arguments: '{}'\n"
    "rollout2: *forge\n";

TEST_CASE("run: a teacher that forges a test pass gets no passing evidence, seragen's own runs decide",
          "[e2e][env][evidence]") {
  testing::TempDir dir;
  MakeSrcLayoutPackage(dir.Sub("repo"));
  TeacherProcess teacher(dir, ReplayFlags(dir, kForgingScript));
  std::string cfg = WriteConfig(dir, dir.Sub("repo"), teacher.url(),
                                std::string(kRunEnvironment) + "  cache_dir: '" + dir.Sub("cache") + "'\n");
  std::string out;
  int rc = testing::RunShell(Binary() + " run -c " + cfg + " 2>&1", &out);
  INFO(out);
  REQUIRE(rc == 0);
  // The model's own command "passed" (its claim, kept as an observation).
  Exported rows = ReadExport(dir.Sub("run"));
  REQUIRE(rows.records >= 1);
  CHECK(CountContaining(rows.commands, "false || : python3 -m pytest -q") >= rows.records);
  CHECK(rows.tests_passed == rows.records);
  // seragen's own runs: both tests pass on the base and fail with P1 and P2.
  std::size_t with_evidence = 0;
  for (const std::string& line : ReadLines(dir.Sub("run/shard-0/journal.jsonl"))) {
    json rec = json::parse(line);
    if (rec.value("stage", "") != "verified") continue;
    const json& t = rec["extra"]["tests"];
    INFO(t.dump());
    REQUIRE(t.is_object());
    ++with_evidence;
    CHECK(t["format"] == "junit");
    CHECK(t["runs"]["base"]["passed"] == 2);
    CHECK(t["runs"]["p1"]["failed"] == 2);
    CHECK(t["runs"]["p2"]["failed"] == 2);
    CHECK(t["runs"]["p2"]["passed"] == 0);
    CHECK(t["runs"]["p2"]["exit_code"] != 0);
    CHECK(t["verdict"] == "agree");  // P2 breaks what P1 broke, which is all the tests can say
    REQUIRE(t["changes"].size() == 2);
    CHECK(t["changes"][0]["test"] == "tests.test_core::test_normalize");
    CHECK(t["changes"][0]["p2"] == "fail");
  }
  CHECK(with_evidence >= 1);
  REQUIRE(testing::RunShell(Binary() + " status " + dir.Sub("run") + " --json", &out) == 0);
  json agreement = json::parse(out)["test_agreement"];
  CHECK(agreement["with_evidence"] == with_evidence);
  CHECK(agreement["agree"] == with_evidence);
  REQUIRE(testing::RunShell(Binary() + " status " + dir.Sub("run"), &out) == 0);
  CHECK(out.find("tests      ") != std::string::npos);
}

}  // namespace
}  // namespace seragen::e2e
