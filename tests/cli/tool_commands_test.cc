// The real binary: verify exit codes and argument errors of verify and llm.
#include <catch2/catch.hpp>

#include "cli/cli_test_util.h"
#include "cli/exit_codes.h"
#include "testing/temp_dir.h"

namespace seragen {
namespace {

using testing::RunSeragen;

}  // namespace

TEST_CASE("verify: 0 accepted, 1 rejected, 2 errors", "[cli]") {
  testing::TempDir dir;
  dir.Write("p1.diff", "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x\n+y = 1\n");
  dir.Write("p2.diff", "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x\n+y = 1\n");
  dir.Write("p3.diff", "diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1,2 @@\n x\n+z = 2\n");
  std::string out;
  CHECK(RunSeragen("verify " + dir.Sub("p1.diff") + " " + dir.Sub("p2.diff"), &out) == 0);
  CHECK(out.find("accepted") != std::string::npos);
  CHECK(RunSeragen("verify " + dir.Sub("p1.diff") + " " + dir.Sub("p3.diff") + " --json", &out) == 1);
  CHECK(out.find("\"accepted\":false") != std::string::npos);
  CHECK(RunSeragen("verify " + dir.Sub("p1.diff") + " " + dir.Sub("missing.diff"), &out) == 2);
  CHECK(out.find("missing.diff") != std::string::npos);
  CHECK(RunSeragen("verify " + dir.Sub("p1.diff") + " " + dir.Sub("p2.diff") + " -t 1.5", &out) == 2);
}

TEST_CASE("exit codes of seragen run, as documented", "[cli][exit]") {
  using runview::RunResult;
  static_assert(cli::ExitCodeFor(RunResult::kComplete) == 0);
  static_assert(cli::ExitCodeFor(RunResult::kIncomplete) == 3);
  static_assert(cli::ExitCodeFor(RunResult::kNothingSucceeded) == 1);
  static_assert(cli::ExitCodeFor(RunResult::kConfigStop) == 2);
  static_assert(cli::ExitCodeFor(RunResult::kInterrupted) == 75);
  CHECK(cli::ExitCodeFor(RunResult::kRuntimeError) == 1);
}

TEST_CASE("llm rejects bad arguments with exit 2", "[cli]") {
  std::string out;
  CHECK(RunSeragen("llm ping", &out) == 2);  // --base-url missing
}

TEST_CASE("the scripted teacher is not a seragen command", "[cli]") {
  std::string out;  // it is its own program, seragen-teacher
  CHECK(testing::RunShell("timeout 10 " + testing::BinaryDir() + "/seragen teacher --port 0", &out) == 2);
}

TEST_CASE("llm ping on a closed port fails with exit 1 and says why", "[cli]") {
  std::string out;
  CHECK(RunSeragen("llm ping --base-url http://127.0.0.1:9/v1 --timeout 2", &out) == 1);
  CHECK_FALSE(out.empty());
}

}  // namespace seragen
