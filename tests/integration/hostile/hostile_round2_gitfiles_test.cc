// Hostile suite, issue 28 (hardening round 2), findings 3 and 4: git files
// the agent (or the input repository) plants in the working copy. Finding 3:
// host-side libgit2 opened `.gitignore`/`.gitattributes` by path, following
// symlinks and blocking on FIFOs. Finding 4: names libgit2 refuses turned the
// submit into an infrastructure failure. Each case runs the real `seragen
// run` with HostileFixture's canary, secret-scan and RSS checks.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "integration/hostile/hostile_fixture.h"
#include "integration/pipeline/harness.h"

namespace seragen::hostile {
namespace {

using nlohmann::json;

const json* Rollout(const std::vector<json>& trajectories, int rollout) {
  for (const json& t : trajectories) {
    if (t.value("rollout", 0) == rollout) return &t;
  }
  return nullptr;
}

// The agent's real change: one line of calc/ops.py.
const std::string kEdit = "sed -i 's/    return value/    return min(value, high)/' /repo/calc/ops.py && echo edited";

// Plays `setup` (bash, in the sandbox) followed by a one-line edit and two
// submits, holds the run to the suite's invariants (a hang is killed by the
// fixture's watchdog and fails them), and expects rollout 1 submitted with a
// patch holding `expected`. Returns that patch.
std::string PlayAndExpectSubmitted(HostileFixture& f, const std::string& setup, const std::string& expected) {
  RunOutcome o = f.Run(Bash(setup + " && " + kEdit) + Submit() + Submit());
  f.CheckInvariants(o);
  std::vector<json> trajectories = f.Trajectories();
  const json* r1 = Rollout(trajectories, 1);
  REQUIRE(r1 != nullptr);
  INFO("rollout 1: " << r1->value("exit_status", "") << " " << r1->value("exit_detail", "") << " "
                     << r1->value("patch_error", ""));
  CHECK(r1->value("exit_status", "") == "submitted");
  std::string patch = r1->value("patch", "");
  CHECK(patch.find(expected) != std::string::npos);
  return patch;
}

// A host directory the sandbox sees read-only, beside (not in) the canary.
std::string HostDir(const HostileFixture& f) { return std::filesystem::path(f.canary()).parent_path().string(); }

// A root-only host file whose line, read by root as ignore rules, would hide
// guess-1.py: the submit review would be an oracle on the file.
std::string RootOnlyRules(const HostileFixture& f) {
  const std::string rules = HostDir(f) + "/root-only-rules";
  REQUIRE(testing::RunShell("printf 'guess-*.py\\n' > " + rules + " && chmod 600 " + rules) == 0);
  return rules;
}

}  // namespace

TEST_CASE("r2 finding 3: FIFOs as .gitignore and .gitattributes do not block the submit",
          "[hostile][round2][r2-finding3]") {
  HostileFixture f(25000);
  PlayAndExpectSubmitted(f,
                         "mkfifo /repo/.gitignore /repo/.gitattributes /repo/calc/.gitignore /repo/calc/.gitattributes",
                         "+    return min(value, high)");
}

TEST_CASE("r2 finding 3: a .gitignore symlinked to a 3 GB host file is never read", "[hostile][round2][r2-finding3]") {
  HostileFixture f(25010);
  const std::string huge = HostDir(f) + "/huge";
  REQUIRE(testing::RunShell("truncate -s 3G " + huge + " && chmod 644 " + huge) == 0);
  // CheckInvariants bounds the peak RSS (400 MB; reading the file took 3 GB).
  PlayAndExpectSubmitted(f, "ln -s " + huge + " /repo/.gitignore && ln -s " + huge + " /repo/calc/.gitattributes",
                         "+    return min(value, high)");
}

TEST_CASE("r2 finding 3: a .gitignore symlinked to a root-only file gives no ignore rules",
          "[hostile][round2][r2-finding3]") {
  HostileFixture f(25020);
  PlayAndExpectSubmitted(f, "ln -s " + RootOnlyRules(f) + " /repo/.gitignore && echo 'x = 1' > /repo/guess-1.py",
                         "diff --git a/guess-1.py b/guess-1.py");
}

TEST_CASE("r2 finding 3: an input repository whose tracked .gitignore is a symlink to a root-only file",
          "[hostile][round2][r2-finding3]") {
  HostileFixture f(25030);
  f.CommitToInputRepo("ln -s " + RootOnlyRules(f) + " .gitignore");
  PlayAndExpectSubmitted(f, "echo 'x = 1' > /repo/guess-1.py", "diff --git a/guess-1.py b/guess-1.py");
}

TEST_CASE("r2 finding 4: names libgit2 refuses (GIT~1, .git., '.git ') are left out of a submitted patch",
          "[hostile][round2][r2-finding4]") {
  HostileFixture f(25040);
  std::string patch = PlayAndExpectSubmitted(
      f, "mkdir -p /repo/b/GIT~1 && echo y > /repo/b/GIT~1/y.py && echo z > /repo/.git. && echo w > '/repo/.git '",
      "+    return min(value, high)");
  CHECK(patch.find("GIT~1") == std::string::npos);
  CHECK(patch.find("a/.git") == std::string::npos);
}

}  // namespace seragen::hostile
