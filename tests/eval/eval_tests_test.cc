// The test-evidence rule of `seragen eval` (eval_tests.h) on hand-made runs,
// and the reference file it journals.
#include <catch2/catch.hpp>

#include "seragen/base/file_util.h"
#include "seragen/eval/eval_tests.h"
#include "testing/temp_dir.h"

namespace seragen::eval {
namespace {

using EvidenceVerdict = verify::TestVerdict;
using verify::TestOutcome;

constexpr TestOutcome kPass = TestOutcome::kPass, kFail = TestOutcome::kFail;

pipeline::TestRun Run(std::map<std::string, TestOutcome> tests) {
  pipeline::TestRun run;
  run.format = verify::TestFormat::kJUnitXml;
  run.outcomes.tests = std::move(tests);
  run.summary.tests = run.outcomes.tests.size();
  return run;
}

pipeline::TestRun Failed(journal::TestRunStatus status) {
  pipeline::TestRun run = Run({});
  run.summary.status = status;
  run.problem = "the tests did not end within 900 s";
  return run;
}

// On the base a and b pass and c fails; the reference fixes c, breaks b, and
// adds a test d of its own.
ReferenceTests Reference() {
  return {Run({{"a", kPass}, {"b", kPass}, {"c", kFail}}),
          Run({{"a", kPass}, {"b", kFail}, {"c", kPass}, {"d", kPass}})};
}

EvidenceVerdict Verdict(const pipeline::TestRun& rollout, const ReferenceTests& ref = Reference()) {
  return ScoreTestRun(ref, rollout).agreement.verdict;
}

}  // namespace

TEST_CASE("eval tests: a rollout passes when it gives every test the reference changed the reference's outcome",
          "[eval]") {
  // The reference's changes, without its own new test d (nor one the rollout adds).
  journal::TestEvidence e = ScoreTestRun(Reference(), Run({{"a", kPass}, {"b", kFail}, {"c", kPass}, {"e", kPass}}));
  CHECK(e.agreement.verdict == EvidenceVerdict::kAgree);
  CHECK(e.agreement.p1_changed == 2);
  CHECK(e.agreement.reproduced == 2);
  CHECK(TestsPassed(e) == true);
  // c fixed but b left as it was: the behaviour change is only half there.
  CHECK(Verdict(Run({{"a", kPass}, {"b", kPass}, {"c", kPass}})) == EvidenceVerdict::kDisagree);
  // Nothing changed (a rollout that gave up: the base's own outcomes).
  CHECK(Verdict(Reference().base) == EvidenceVerdict::kDisagree);
  // The changes made, but a test that passed on the base and with the reference fails.
  e = ScoreTestRun(Reference(), Run({{"a", kFail}, {"b", kFail}, {"c", kPass}}));
  CHECK(e.agreement.verdict == EvidenceVerdict::kDisagree);
  CHECK(e.agreement.regressed == 1);
  CHECK(TestsPassed(e) == false);
  // A test the reference changed that the rollout's run no longer reports counts as changed otherwise.
  CHECK(Verdict(Run({{"a", kPass}, {"c", kPass}})) == EvidenceVerdict::kDisagree);
}

TEST_CASE("eval tests: a rollout whose own run gives no outcomes fails, without a reference signal there is none",
          "[eval]") {
  for (auto status :
       {journal::TestRunStatus::kTimedOut, journal::TestRunStatus::kTruncated, journal::TestRunStatus::kPatchFailed}) {
    journal::TestEvidence e = ScoreTestRun(Reference(), Failed(status));
    CHECK(e.agreement.verdict == EvidenceVerdict::kDisagree);
    CHECK(e.detail.find("p2: the tests did not end") != std::string::npos);
  }
  // The reference changed no test (only added one): no signal, whatever the rollout does.
  ReferenceTests quiet{Run({{"a", kPass}}), Run({{"a", kPass}, {"d", kPass}})};
  CHECK(Verdict(Run({{"a", kPass}}), quiet) == EvidenceVerdict::kNoSignal);
  CHECK(Verdict(Failed(journal::TestRunStatus::kTimedOut), quiet) == EvidenceVerdict::kNoSignal);
  CHECK(TestsPassed(ScoreTestRun(quiet, Run({{"a", kPass}}))) == std::nullopt);
  // The base's or the reference's run gave no outcomes: unavailable.
  ReferenceTests broken{Reference().base, Failed(journal::TestRunStatus::kTimedOut)};
  CHECK(Verdict(Run({{"a", kPass}}), broken) == EvidenceVerdict::kUnavailable);
  CHECK(TestsPassed(ScoreTestRun(broken, Run({}))) == std::nullopt);
}

TEST_CASE("eval tests: the reference runs round trip through their file, problems included", "[eval]") {
  seragen::testing::TempDir dir;
  auto none = ReadReferenceTests(dir.path(), "t1");
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  ReferenceTests ref = Reference();
  ref.base.summary.exit_code = 1;
  ref.base.outcomes.truncated = true;
  REQUIRE(WriteFileAtomic(ReferenceTestsPath(dir.path(), "t1"), EncodeReferenceTests("t1", ref)).ok());
  auto back = ReadReferenceTests(dir.path(), "t1");
  REQUIRE(back.ok());
  REQUIRE(back->has_value());
  const ReferenceTests& r = **back;
  CHECK(r.base.format == verify::TestFormat::kJUnitXml);
  CHECK(r.base.outcomes.tests == ref.base.outcomes.tests);
  CHECK(r.base.outcomes.truncated);
  CHECK(r.reference.outcomes.tests == ref.reference.outcomes.tests);
  CHECK(r.base.summary == ref.base.summary);
  CHECK(r.base.problem.empty());
  CHECK(ScoreTestRun(r, Run({{"a", kPass}, {"b", kFail}, {"c", kPass}})).agreement.verdict == EvidenceVerdict::kAgree);

  // A reference run that timed out stays unavailable after a reread.
  ReferenceTests broken{Reference().base, Failed(journal::TestRunStatus::kTimedOut)};
  REQUIRE(WriteFileAtomic(ReferenceTestsPath(dir.path(), "t2"), EncodeReferenceTests("t2", broken)).ok());
  auto again = ReadReferenceTests(dir.path(), "t2");
  REQUIRE(again.ok());
  CHECK_FALSE((*again)->reference.problem.empty());
  CHECK(ScoreTestRun(**again, Run({{"a", kPass}})).agreement.verdict == EvidenceVerdict::kUnavailable);

  // A damaged file is an error naming it.
  REQUIRE(WriteFileAtomic(ReferenceTestsPath(dir.path(), "t3"), "{\"runs\": 1}").ok());
  auto damaged = ReadReferenceTests(dir.path(), "t3");
  REQUIRE_FALSE(damaged.ok());
  CHECK(damaged.status().message().find("t3.json") != std::string::npos);
}

TEST_CASE("eval tests: reference runs made under other settings are made again, never reused", "[eval]") {
  seragen::testing::TempDir dir;
  REQUIRE(WriteFileAtomic(ReferenceTestsPath(dir.path(), "t1"), EncodeReferenceTests("t1", Reference(), "key-a")).ok());
  auto same = ReadReferenceTests(dir.path(), "t1", "key-a");
  REQUIRE(same.ok());
  CHECK(same->has_value());
  // Another test command, environment, timeout or cap: another key.
  auto other = ReadReferenceTests(dir.path(), "t1", "key-b");
  REQUIRE(other.ok());
  CHECK_FALSE(other->has_value());
  // A file without settings (or with damaged ones) is not taken for any key.
  REQUIRE(WriteFileAtomic(ReferenceTestsPath(dir.path(), "t2"), EncodeReferenceTests("t2", Reference())).ok());
  auto unkeyed = ReadReferenceTests(dir.path(), "t2", "key-a");
  REQUIRE(unkeyed.ok());
  CHECK_FALSE(unkeyed->has_value());
}

}  // namespace seragen::eval
