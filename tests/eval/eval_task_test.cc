#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "seragen/base/file_util.h"
#include "seragen/eval/eval_task.h"
#include "testing/temp_dir.h"

namespace seragen::eval {
namespace {

// A planned task's fields; its SWE-bench name follows from them as the planner
// derives it ("<repo>__<task id>").
EvalTask Sample() {
  EvalTask t{
      .task_id = "abc", .function_id = "a.py::f", .category = 13, .teacher_recall = 0.75, .verify_threshold = 0.5};
  t.repo = "inventory";
  t.instance_id = t.repo + "__" + t.task_id;
  t.base_commit = "0123456789abcdef0123456789abcdef01234567";
  t.problem_statement = "Reserving more than is in stock succeeds.";
  t.patch = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n";
  return t;
}

TEST_CASE("eval task: SWE-bench keys at the top, seragen's under one key, round trip", "[eval]") {
  const std::string line = EncodeEvalTask(Sample());
  nlohmann::json j = nlohmann::json::parse(line);
  for (const char* key : {"instance_id", "repo", "base_commit", "problem_statement", "patch", "test_patch",
                          "FAIL_TO_PASS", "PASS_TO_PASS"}) {
    CHECK(j.contains(key));
  }
  CHECK(j["seragen"]["p1"] == j["patch"]);
  CHECK_FALSE(j["seragen"].contains("test_evidence"));  // none recorded
  auto back = DecodeEvalTask(line);
  REQUIRE(back.ok());
  CHECK(EncodeEvalTask(*back) == line);
  EvalTask with_tests = Sample();
  with_tests.test_evidence = TestEvidence{"pytest -q", "ran: 2 tests, 2 pass, 0 fail, 0 skip, exit 0",
                                          "ran: 2 tests, 1 pass, 1 fail, 0 skip, exit 1", "timed_out", "unavailable"};
  auto tested = DecodeEvalTask(EncodeEvalTask(with_tests));
  REQUIRE(tested.ok());
  REQUIRE(tested->test_evidence);
  CHECK(tested->test_evidence->p2 == "timed_out");
  CHECK(tested->test_evidence->verdict == "unavailable");
}

TEST_CASE("eval task: a bad line names its field, a cut file is refused", "[eval]") {
  nlohmann::json j = nlohmann::json::parse(EncodeEvalTask(Sample()));
  j.erase("patch");
  auto missing = DecodeEvalTask(j.dump());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("'patch'") != std::string::npos);
  CHECK_FALSE(DecodeEvalTask("[1]").ok());
  testing::TempDir dir;
  const std::string path = dir.path() + "/eval.jsonl";
  REQUIRE(WriteFileAtomic(path, EncodeEvalTask(Sample()) + "\n" + EncodeEvalTask(Sample())).ok());
  auto read = ReadEvalTasks(path);
  REQUIRE_FALSE(read.ok());
  CHECK(read.status().message().find("line 2") != std::string::npos);
}

}  // namespace
}  // namespace seragen::eval
