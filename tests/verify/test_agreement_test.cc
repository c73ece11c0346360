#include "seragen/verify/test_agreement.h"

#include <catch2/catch.hpp>

namespace seragen::verify {
namespace {

using O = TestOutcome;

TestOutcomes Run(std::map<std::string, O> tests) { return TestOutcomes{std::move(tests), false}; }

}  // namespace

TEST_CASE("agreement: P2 changes every test P1 changed, the same way", "[verify][evidence]") {
  TestOutcomes base = Run({{"a", O::kPass}, {"b", O::kPass}, {"c", O::kFail}});
  TestOutcomes p1 = Run({{"a", O::kFail}, {"b", O::kPass}, {"c", O::kPass}, {"new", O::kPass}});
  TestAgreement a = CompareTestRuns(base, p1, p1);
  CHECK(a.verdict == TestVerdict::kAgree);
  CHECK(a.p1_changed == 3);  // a, c and the added test
  CHECK(a.reproduced == 3);
  CHECK(a.regressed == 0);
  REQUIRE(a.changes.size() == 3);
  CHECK(a.changes[0] == TestChange{"a", O::kPass, O::kFail, O::kFail});
  CHECK(a.changes[2] == TestChange{"new", std::nullopt, O::kPass, O::kPass});
}

TEST_CASE("agreement: a missed change or a broken passing test disagrees", "[verify][evidence]") {
  TestOutcomes base = Run({{"a", O::kPass}, {"b", O::kPass}});
  TestOutcomes p1 = Run({{"a", O::kFail}, {"b", O::kPass}});
  TestAgreement missed = CompareTestRuns(base, p1, base);
  CHECK(missed.verdict == TestVerdict::kDisagree);
  CHECK(missed.reproduced == 0);
  TestAgreement regressed = CompareTestRuns(base, p1, Run({{"a", O::kFail}, {"b", O::kSkip}}));
  CHECK(regressed.verdict == TestVerdict::kDisagree);
  CHECK(regressed.reproduced == 1);
  CHECK(regressed.regressed == 1);
  // A different failure mode is not the same change: skipped is not failed.
  CHECK(CompareTestRuns(base, p1, Run({{"a", O::kSkip}, {"b", O::kPass}})).verdict == TestVerdict::kDisagree);
}

TEST_CASE("agreement: no test changed by P1 is no signal, whatever P2 does", "[verify][evidence]") {
  TestOutcomes base = Run({{"a", O::kPass}});
  CHECK(CompareTestRuns(base, base, base).verdict == TestVerdict::kNoSignal);
  TestAgreement a = CompareTestRuns(base, base, Run({{"a", O::kFail}}));
  CHECK(a.verdict == TestVerdict::kNoSignal);
  CHECK(a.regressed == 1);
  CHECK(a.changes.size() == 1);
}

TEST_CASE("agreement: the recorded changes are bounded", "[verify][evidence]") {
  std::map<std::string, O> b, p;
  for (int i = 0; i < 80; ++i) {
    b["t" + std::to_string(i)] = O::kPass;
    p["t" + std::to_string(i)] = O::kFail;
  }
  TestAgreement a = CompareTestRuns(Run(b), Run(p), Run(p), 50);
  CHECK(a.verdict == TestVerdict::kAgree);
  CHECK(a.p1_changed == 80);
  CHECK(a.changes.size() == 50);
  CHECK(a.changes_truncated);
}

}  // namespace seragen::verify
