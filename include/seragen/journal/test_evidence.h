// The test evidence of a task as the journal keeps it: seragen's own runs of
// the repository's test command on the base commit, base + P1 and base + P2
// (never the model's own test commands), and whether P2 reproduces the test
// outcomes P1 changed (docs/VERIFY.md "Test evidence", docs/JOURNAL.md).
// Part of the verified record's extra ("tests"), so a resumed run neither
// runs it again nor loses it.
//
// The vocabulary is verify's (TestFormat, TestOutcome, TestVerdict,
// TestAgreement); this module's encoding is the one place its values become
// text. Plain values; the JSON codec is the journal's (record.h). The
// per-test detail is bounded: only tests that differ between runs, at most
// kMaxRecordedChanges of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "seragen/base/result.h"
#include "seragen/verify/test_agreement.h"
#include "seragen/verify/test_report.h"

namespace seragen::journal {

inline constexpr std::size_t kMaxRecordedChanges = 50;

// How one run ended: ran (outcomes recorded, whatever the exit status),
// timed_out, patch_failed (the patch did not apply to a fresh copy),
// not_started (the sandbox or copy failed), truncated (output over the cap).
enum class TestRunStatus { kRan, kTimedOut, kPatchFailed, kNotStarted, kTruncated };
std::string_view TestRunStatusName(TestRunStatus status);

// "agree", "disagree", "no_signal", "unavailable": the journal's names, which
// status --json and eval use too. TestVerdictNames lists every verdict with
// its name, in the enum's order.
std::string_view TestVerdictName(verify::TestVerdict verdict);
std::span<const std::pair<verify::TestVerdict, std::string_view>> TestVerdictNames();
// "pass", "fail", "skip" (the journal's names of a test's outcome, which
// eval's reference files use too).
std::string_view TestOutcomeName(verify::TestOutcome outcome);

struct TestRunSummary {
  TestRunStatus status = TestRunStatus::kRan;
  int exit_code = 0;
  std::uint64_t tests = 0, passed = 0, failed = 0, skipped = 0;
  std::uint64_t duration_ms = 0;
  friend bool operator==(const TestRunSummary&, const TestRunSummary&) = default;
};

// "extra.tests" of verified:
//   {"format":"junit","verdict":"agree","detail":"",
//    "runs":{"base":{"status":"ran","exit_code":1,"tests":2,"passed":1,"failed":1,"skipped":0,"ms":812},
//            "p1":{...},"p2":{...}},
//    "p1_changed":1,"reproduced":1,"regressed":0,
//    "changes":[{"test":"tests.test_core::test_top_share","base":"pass","p1":"fail","p2":"fail"}],
//    "changes_truncated":false}
// A change's outcome is "pass", "fail", "skip", or "absent" (std::nullopt:
// the run did not report the test).
struct TestEvidence {
  verify::TestFormat format = verify::TestFormat::kExitStatus;  // "exit", "junit", "go-json", "tap"
  std::string detail;                                           // why a run gave no outcomes
  TestRunSummary base, p1, p2;
  // The comparison of the three runs (verdict kUnavailable when `detail` is
  // set), at most kMaxRecordedChanges changes.
  verify::TestAgreement agreement;
  friend bool operator==(const TestEvidence&, const TestEvidence&) = default;
};

// The evidence as the JSON object of "extra.tests" above, on one line, for
// other files that keep evidence (the eval's results.jsonl): the same keys
// and rules as the journal's own records.
std::string EncodeTestEvidence(const TestEvidence& evidence);
// Parses such an object; errors name the member ("extra.tests.<member>").
Result<TestEvidence> DecodeTestEvidence(std::string_view json_object);

}  // namespace seragen::journal
