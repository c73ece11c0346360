// Whether P2 reproduces P1's behaviour change as the repository's tests see
// it (docs/VERIFY.md, "Test evidence"): the outcomes of seragen's own runs
// of the test command on the base commit, base + P1 and base + P2.
//
//   changed by P1  the tests whose outcome with P1 differs from the base's
//                  (a test missing from one run counts as the outcome
//                  "absent": a test P1 adds, removes or breaks the
//                  collection of has changed)
//   reproduced     those of them whose outcome with P2 equals P1's
//   regressed      tests that pass on the base and with P1 but not with P2
//
//   agree       P1 changed at least one test, P2 reproduced every one of
//               them and regressed none
//   disagree    P1 changed at least one test, and P2 missed one or regressed one
//   no_signal   P1 changed no test outcome: the tests cannot tell whether P2
//               reproduces it (counted apart, in neither share)
//   unavailable a run gave no outcomes, so nothing was compared (never
//               CompareTestRuns' answer: the caller that ran the tests says it)
//
// These are the values the journal records (journal/test_evidence.h), whose
// encoding alone names them. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "seragen/verify/test_report.h"

namespace seragen::verify {

enum class TestVerdict { kAgree, kDisagree, kNoSignal, kUnavailable };

// A test whose outcome is not the same in all three runs (nullopt: absent).
struct TestChange {
  std::string test;
  std::optional<TestOutcome> base, p1, p2;
  friend bool operator==(const TestChange&, const TestChange&) = default;
};

struct TestAgreement {
  TestVerdict verdict = TestVerdict::kUnavailable;
  std::size_t p1_changed = 0;
  std::size_t reproduced = 0;
  std::size_t regressed = 0;
  // Every test that differs between any two runs, in test id order, at most
  // `max_changes` (changes_truncated says more were left out).
  std::vector<TestChange> changes;
  bool changes_truncated = false;
  friend bool operator==(const TestAgreement&, const TestAgreement&) = default;
};

TestAgreement CompareTestRuns(const TestOutcomes& base, const TestOutcomes& p1, const TestOutcomes& p2,
                              std::size_t max_changes = 50);

}  // namespace seragen::verify
