// The test evidence of a task as the journal keeps it: seragen's own runs of
// the repository's test command on the base commit, base + P1 and base + P2
// (never the model's own test commands), and whether P2 reproduces the test
// outcomes P1 changed (docs/VERIFY.md "Test evidence", docs/JOURNAL.md).
// Part of the verified record's extra ("tests"), so a resumed run neither
// runs it again nor loses it.
//
// Plain values; the JSON codec is the journal's (record.h). The per-test
// detail is bounded: only tests that differ between runs, at most
// kMaxRecordedChanges of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::journal {

inline constexpr std::size_t kMaxRecordedChanges = 50;

// agree / disagree / no_signal as verify's CompareTestRuns says; unavailable
// when a run did not give outcomes (`detail` says which and why).
enum class EvidenceVerdict { kAgree, kDisagree, kNoSignal, kUnavailable };
std::string_view EvidenceVerdictName(EvidenceVerdict verdict);
std::optional<EvidenceVerdict> EvidenceVerdictNamed(std::string_view name);

// How one run ended: ran (outcomes recorded, whatever the exit status),
// timed_out, patch_failed (the patch did not apply to a fresh copy),
// not_started (the sandbox or copy failed), truncated (output over the cap).
enum class TestRunStatus { kRan, kTimedOut, kPatchFailed, kNotStarted, kTruncated };
std::string_view TestRunStatusName(TestRunStatus status);
std::optional<TestRunStatus> TestRunStatusNamed(std::string_view name);

// One test's outcome in a run; kAbsent when the run did not report it.
enum class RecordedOutcome { kAbsent, kPass, kFail, kSkip };
std::string_view RecordedOutcomeName(RecordedOutcome outcome);
std::optional<RecordedOutcome> RecordedOutcomeNamed(std::string_view name);

struct TestRunSummary {
  TestRunStatus status = TestRunStatus::kRan;
  int exit_code = 0;
  std::uint64_t tests = 0, passed = 0, failed = 0, skipped = 0;
  std::uint64_t duration_ms = 0;
  friend bool operator==(const TestRunSummary&, const TestRunSummary&) = default;
};

struct RecordedTestChange {
  std::string test;
  RecordedOutcome base = RecordedOutcome::kAbsent;
  RecordedOutcome p1 = RecordedOutcome::kAbsent;
  RecordedOutcome p2 = RecordedOutcome::kAbsent;
  friend bool operator==(const RecordedTestChange&, const RecordedTestChange&) = default;
};

// "extra.tests" of verified:
//   {"format":"junit","verdict":"agree","detail":"",
//    "runs":{"base":{"status":"ran","exit_code":1,"tests":2,"passed":1,"failed":1,"skipped":0,"ms":812},
//            "p1":{...},"p2":{...}},
//    "p1_changed":1,"reproduced":1,"regressed":0,
//    "changes":[{"test":"tests.test_core::test_top_share","base":"pass","p1":"fail","p2":"fail"}],
//    "changes_truncated":false}
struct TestEvidence {
  std::string format;  // verify::TestFormatName: exit, junit, go-json, tap
  EvidenceVerdict verdict = EvidenceVerdict::kUnavailable;
  std::string detail;
  TestRunSummary base, p1, p2;
  std::uint64_t p1_changed = 0, reproduced = 0, regressed = 0;
  std::vector<RecordedTestChange> changes;
  bool changes_truncated = false;
  friend bool operator==(const TestEvidence&, const TestEvidence&) = default;
};

// The evidence as the JSON object of "extra.tests" above, on one line, for
// other files that keep evidence (the eval's results.jsonl): the same keys
// and rules as the journal's own records.
std::string EncodeTestEvidence(const TestEvidence& evidence);
// Parses such an object; errors name the member ("extra.tests.<member>").
Result<TestEvidence> DecodeTestEvidence(std::string_view json_object);

}  // namespace seragen::journal
