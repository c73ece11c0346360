// The JavaScript acceptance of the environments (docs/ENVIRONMENTS.md,
// "JavaScript"): a small repository with package.json and package-lock.json
// depending on one real npm package (ms), tests with `node --test`.
// `config init` writes the node profile (npm ci in setup, the network for
// setup only), `env check` passes, the rollouts import the code with its
// dependency and find no network, seragen's own evidence runs the tests
// (TAP) and `status --json` reports the environment's health and the
// soft/hard agreement. Needs the npm registry (label "network").
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "integration/pipeline/harness.h"
#include "seragen/base/file_util.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::e2e {
namespace {

using nlohmann::json;

// The fixture as a git repository with a fixed commit, in a directory the
// sandbox uids can reach.
void MakeNodeRepo(const std::string& path) {
  const std::string fixture = seragen::testing::SourcePath("tests/integration/pipeline/fixtures/jsdemo");
  MakeGitRepo(path, "cp -r '" + fixture + "' '" + path + "'", "Delay helpers");
}

// Both rollouts import the package from /repo (its dependency from the
// prepared prefix), look for the network, make the same change (the word
// "waits" of describeDelay) and run the tests.
const char* kRolloutScript =
    "rollout1: &rollout\n"
    "  - tool: bash\n"
    "    arguments: |\n"
    "      {\"command\": \"node -e \\\"const d = require('/repo'); console.log('jsdemo loaded:', "
    "d.delayFor('90s', '1h'))\\\"\"}\n"
    "  - tool: bash\n"
    "    arguments: |\n"
    "      {\"command\": \"node -e \\\"require('dns').lookup('registry.npmjs.org', (e) => "
    "console.log('network-' + (e ? 'none' : 'reachable')))\\\"\"}\n"
    "  - tool: bash\n"
    "    arguments: |\n"
    "      {\"command\": \"sed -i \\\"s/'waits '/'wait '/\\\" /repo/index.js && cd /repo && npm test\"}\n"
    "  - {tool: submit, arguments: '{}'}\n"
    "  - {tool: submit, arguments: '{}'}\n"
    "rollout2: *rollout\n";

TEST_CASE("javascript with a lockfile: npm ci in setup, offline rollouts import the code, evidence runs the tests",
          "[e2e][env][evidence][network]") {
  testing::TempDir dir;
  MakeNodeRepo(dir.Sub("jsdemo"));
  TeacherProcess teacher(dir, ReplayFlags(dir, kRolloutScript));
  const std::string cfg = ConfigInit(dir, dir.Sub("jsdemo"), teacher.url());
  const std::string text = *ReadFile(cfg);
  INFO(text);
  std::string out;
  CHECK(text.find("  profile: node\n") != std::string::npos);
  CHECK(text.find("npm ci --ignore-scripts") != std::string::npos);
  CHECK(text.find("  test_command: 'npm test'") != std::string::npos);
  const std::string sets = " --set eval.holdout=0 --set environment.cache_dir=" + dir.Sub("cache");
  int rc = testing::RunShell(Binary() + " env check -c " + cfg + sets + " 2>&1", &out);
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(out.find("/repo loads") != std::string::npos);
  rc = testing::RunShell(Binary() + " run -c " + cfg + sets + " 2>&1", &out);
  INFO(out);
  REQUIRE(rc == 0);
  std::string log;
  REQUIRE(testing::RunShell("cat " + dir.Sub("runs/jsdemo/env") + "/jsdemo-*.log", &log) == 0);
  CHECK(log.find("npm ci") != std::string::npos);
  CHECK(log.find("added 1 package") != std::string::npos);

  REQUIRE(testing::RunShell(Binary() + " export " + dir.Sub("runs/jsdemo") + " --format openai 2>&1", &out) == 0);
  std::string rows = *ReadFile(dir.Sub("runs/jsdemo/data/t1.openai.jsonl"));
  CHECK(rows.find("jsdemo loaded: waits 2m") != std::string::npos);  // index.js and ms from /env
  CHECK(rows.find("network-none") != std::string::npos);
  CHECK(rows.find("network-reachable") == std::string::npos);

  REQUIRE(testing::RunShell(Binary() + " status " + dir.Sub("runs/jsdemo") + " --json", &out) == 0);
  json st = json::parse(out);
  CHECK(st["env_health"]["rollouts"].get<int>() >= 2);
  CHECK(st["env_health"]["env_broken"] == 0);
  const json& agreement = st["test_agreement"];
  INFO(agreement.dump());
  CHECK(agreement["with_evidence"].get<int>() >= 1);
  CHECK(agreement["agree"] == agreement["with_evidence"]);
  for (const std::string& line : ReadLines(dir.Sub("runs/jsdemo/shard-0/journal.jsonl"))) {
    json rec = json::parse(line);
    if (rec.value("stage", "") != "verified") continue;
    const json& t = rec["extra"]["tests"];
    INFO(t.dump());
    CHECK(t["format"] == "tap");
    CHECK(t["runs"]["base"]["tests"] == 4);
    CHECK(t["runs"]["base"]["passed"] == 4);
    CHECK(t["runs"]["p1"]["failed"] == 1);
    REQUIRE(t["changes"].size() == 1);
    CHECK(t["changes"][0]["test"] == "describeDelay within the limit");
  }
}

}  // namespace
}  // namespace seragen::e2e
