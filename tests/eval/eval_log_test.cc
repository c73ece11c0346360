#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "seragen/base/file_util.h"
#include "seragen/eval/eval_log.h"
#include "testing/temp_dir.h"

namespace seragen::eval {
namespace {

EvalResult Result(const std::string& task, int seed, bool resolved) {
  EvalResult r;
  r.task_id = task;
  r.seed = seed;
  r.exit = "submitted";
  r.submitted = true;
  r.recall = resolved ? 1.0 : 0.0;
  r.resolved = resolved;
  r.prompt_tokens = 100;
  r.trajectory = EvalTrajectoryRef(task, seed);
  return r;
}

TEST_CASE("eval log: results appended survive a reopen, a torn tail is cut", "[eval]") {
  testing::TempDir dir;
  EvalHeader header{"student", "student", "/runs/a", "sera", 0.5};
  {
    auto log = EvalLog::Open(dir.path(), header);
    REQUIRE(log.ok());
    REQUIRE(log->Append(Result("t1", 0, true)).ok());
    REQUIRE(log->Append(Result("t2", 0, false)).ok());
  }
  // A kill in the middle of the next line.
  auto text = ReadFile(EvalLogPath(dir.path()));
  REQUIRE(text.ok());
  REQUIRE(WriteFileAtomic(EvalLogPath(dir.path()), *text + R"({"task_id":"t3","se)").ok());
  auto read = ReadEvalLog(dir.path());
  REQUIRE(read.ok());
  CHECK(read->torn_tail);
  CHECK(read->results.size() == 2);
  REQUIRE(read->header);
  CHECK(read->header->model == "student");
  {
    auto log = EvalLog::Open(dir.path(), header);
    REQUIRE(log.ok());
    REQUIRE(log->Append(Result("t3", 0, true)).ok());
  }
  read = ReadEvalLog(dir.path());
  REQUIRE(read.ok());
  CHECK_FALSE(read->torn_tail);
  REQUIRE(read->results.size() == 3);
  CHECK(read->results[2].task_id == "t3");
  CHECK(read->results[0].resolved);
}

TEST_CASE("eval log: a result line lists its keys in a fixed order and reads back as written", "[eval]") {
  EvalResult r = Result("t1", 2, true);
  r.tests_passed = false;
  r.model = "m";
  const std::string line = EncodeEvalResult(r);
  CHECK(line ==
        R"({"task_id":"t1","instance_id":"","seed":2,"exit":"submitted","submitted":true,"autosubmitted":false,)"
        R"("scorable":false,"recall":1.0,"precision":0.0,"f1":0.0,"resolved":true,"tests_passed":false,)"
        R"("prompt_tokens":100,"completion_tokens":0,"model_calls":0,"steps":0,"wall_seconds":0.0,)"
        R"("trajectory":"trajectories/t1.s2.json","model":"m"})");
  auto back = DecodeEvalResult(line);
  REQUIRE(back.ok());
  CHECK(EncodeEvalResult(*back) == line);
  r.tests_passed.reset();  // no test evidence: null, and none again when read
  auto untested = DecodeEvalResult(EncodeEvalResult(r));
  REQUIRE(untested.ok());
  CHECK_FALSE(untested->tests_passed);
  CHECK_FALSE(DecodeEvalResult(R"({"seed":0})").ok());                  // task_id is required
  CHECK_FALSE(DecodeEvalResult(R"({"task_id":"t","seed":"x"})").ok());  // so is a numeric seed
}

TEST_CASE("eval log: one directory per model and run", "[eval]") {
  testing::TempDir dir;
  REQUIRE(EvalLog::Open(dir.path(), {"student", "", "/runs/a", "sera", 0.5}).ok());
  auto other = EvalLog::Open(dir.path(), {"teacher", "", "/runs/a", "sera", 0.5});
  REQUIRE_FALSE(other.ok());
  CHECK(other.status().message().find("student") != std::string::npos);
  auto empty = ReadEvalLog(dir.path() + "/none");
  REQUIRE(empty.ok());
  CHECK_FALSE(empty->header);
}

// `seragen eval` records finished rollouts from its worker threads: every
// append must land, none may overwrite another's line.
TEST_CASE("eval log: appends from several threads at once all land", "[eval]") {
  testing::TempDir dir;
  auto log = EvalLog::Open(dir.path(), {"student", "", "/runs/a", "sera", 0.5});
  REQUIRE(log.ok());
  constexpr int kThreads = 6, kEach = 8;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        if (!log->Append(Result("t" + std::to_string(t), i, true)).ok()) ++failures[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int f : failures) CHECK(f == 0);
  auto read = ReadEvalLog(dir.path());
  REQUIRE(read.ok());
  std::set<std::string> units;
  for (const EvalResult& r : read->results) units.insert(r.task_id + "#" + std::to_string(r.seed));
  CHECK(read->results.size() == kThreads * kEach);
  CHECK(units.size() == kThreads * kEach);
}

// Test evidence as eval_tests.h makes it: a disagreement with more
// changed tests than the journal keeps.
journal::TestEvidence Evidence() {
  journal::TestEvidence e;
  e.format = verify::TestFormat::kJUnitXml;
  e.agreement.verdict = verify::TestVerdict::kDisagree;
  e.base = {journal::TestRunStatus::kRan, 0, 60, 60, 0, 0, 812};
  e.p1 = {journal::TestRunStatus::kRan, 1, 60, 0, 60, 0, 790};
  e.p2 = {journal::TestRunStatus::kTimedOut, -1, 0, 0, 0, 0, 900000};
  e.agreement.p1_changed = 60;
  for (std::size_t i = 0; i < journal::kMaxRecordedChanges; ++i) {
    e.agreement.changes.push_back({"tests/test_m.py::test_" + std::to_string(i), verify::TestOutcome::kPass,
                                   verify::TestOutcome::kFail, std::nullopt});
  }
  e.agreement.changes_truncated = true;
  e.detail = "p2: the tests did not end within 900 s";
  return e;
}

TEST_CASE("eval log: a rollout's test evidence survives the log, its truncated changes and a reopen", "[eval]") {
  testing::TempDir dir;
  EvalResult r = Result("t1", 0, true);
  r.tests = Evidence();
  r.tests_passed = false;
  const std::string line = EncodeEvalResult(r);
  CHECK(line.find(R"("tests":{"format":"junit","verdict":"disagree",)") != std::string::npos);
  CHECK(line.find(R"("changes_truncated":true)") != std::string::npos);
  auto back = DecodeEvalResult(line);
  REQUIRE(back.ok());
  REQUIRE(back->tests.has_value());
  CHECK(*back->tests == Evidence());
  CHECK(back->tests_passed == false);
  CHECK(EncodeEvalResult(*back) == line);
  // Through the log: appended, reopened (lines written anew), read back as written.
  EvalHeader header{"student", "student", "/runs/a", "sera", 0.5};
  {
    auto log = EvalLog::Open(dir.path(), header);
    REQUIRE(log.ok());
    REQUIRE(log->Append(r).ok());
    REQUIRE(log->Append(Result("t2", 0, false)).ok());
  }
  auto before = ReadFile(EvalLogPath(dir.path()));
  REQUIRE(before.ok());
  REQUIRE(EvalLog::Open(dir.path(), header).ok());
  CHECK(*ReadFile(EvalLogPath(dir.path())) == *before);
  auto read = ReadEvalLog(dir.path());
  REQUIRE(read.ok());
  REQUIRE(read->results.size() == 2);
  CHECK(read->results[0].tests == Evidence());
  CHECK_FALSE(read->results[1].tests.has_value());
  // Evidence of the wrong shape is an error naming the member.
  auto bad = DecodeEvalResult(R"({"task_id":"t","seed":0,"tests":{"verdict":"maybe","runs":{}}})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("verdict") != std::string::npos);
}

}  // namespace
}  // namespace seragen::eval
