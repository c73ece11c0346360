// The outcome vocabulary of journal records, as named values: the verdict of
// a verified record, the judge's answer of a judge_done record, the reason of
// a skipped record, the class of an error (who it blames and what happened),
// and the outcome of a task as a reader shows it. The pipeline writes these
// values and every reader (runview, report, export) asks for them instead of
// comparing strings: the Name functions here and record.cc's codec are the only
// places they are text (scripts/check-outcome-text keeps it so).
//
// Decoding is total: text this version does not know (an older or a damaged
// journal) is the named kUnknown value of its enum, never an error. Pure;
// thread-safe.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

#include "seragen/journal/error_class.h"
#include "seragen/journal/record.h"

namespace seragen::journal {

// The status of a verified record. In the order of their names, so maps keyed
// by them list the same order as by text.
enum class Verdict { kAccepted, kNotScorable, kRejected, kUnknown };

// "accepted", "not_scorable", "rejected", "unknown".
std::string_view VerdictName(Verdict verdict);
// Inverse of VerdictName; kUnknown for any other text.
Verdict ParseVerdict(std::string_view status);
// The verdict of a verified record; nullopt for other stages.
std::optional<Verdict> VerdictOf(Stage stage, std::string_view status);
std::optional<Verdict> VerdictOf(const JournalRecord& record);
// A verified record whose verdict is accepted.
bool IsAccepted(const JournalRecord& record);
bool IsAccepted(const LatestRecord& record);

// Why a task was skipped (the status of a skipped record), in name order:
// another attempt already handed in the same rollout-1 patch; rollout 1 changed
// nothing; the judge said no / gave no readable answer to every attempt;
// rollout 1 ended without handing in (its exit status follows the prefix).
enum class SkipKind { kDuplicateP1, kEmptyP1, kJudgeNo, kJudgeUnparseable, kRollout1Ended, kUnknown };

struct SkipReason {
  SkipKind kind = SkipKind::kUnknown;
  std::string exit;  // kRollout1Ended: the rollout's exit status name; else ""

  friend auto operator<=>(const SkipReason&, const SkipReason&) = default;
};

// "duplicate_p1", "empty_p1", "judge_no", "judge_unparseable",
// "rollout1_<exit>", "unknown".
std::string SkipReasonName(const SkipReason& reason);
// Inverse of SkipReasonName; kUnknown for any other text.
SkipReason ParseSkipReason(std::string_view status);

// The status of a judge_done record: the judge said yes (the rollout-1
// attempt goes on), no, or nothing readable; or no judge was asked because
// rollout 1 was not worth judging (the status is then that SkipReason's
// name: empty_p1, rollout1_<exit>). Every answer but yes rejects the attempt.
enum class JudgeAnswer { kYes, kNo, kUnparseable, kNotJudged, kUnknown };

// "yes", "no", "unparseable"; kNotJudged and kUnknown have no text of their
// own (the record's status says why).
std::string_view JudgeAnswerName(JudgeAnswer answer);
// Total: kNotJudged for the name of a skip reason, kUnknown for other text.
JudgeAnswer ParseJudgeAnswer(std::string_view status);
// A judge_done record whose answer is not yes.
bool IsJudgeRejection(const JournalRecord& record);
// The skip reason that ends a task after the judge answered `answer` to its
// last attempt (judge_no, judge_unparseable).
SkipReason SkipAfterJudge(JudgeAnswer answer);
// A skipped record whose reason is the judge's (judge_no, judge_unparseable).
bool IsJudgeSkip(const LatestRecord& record);

// Whether a rollout's done record says the agent handed in ("submitted").
bool IsSubmittedRollout(const JournalRecord& record);

// What a reader shows as a task's outcome, in name order.
enum class Outcome { kAccepted, kFailed, kNotScorable, kPlanned, kRejected, kRunning, kSkipped, kUnknown };

// "accepted", "failed", "not_scorable", "planned", "rejected", "running",
// "skipped", "unknown".
std::string_view OutcomeName(Outcome outcome);
// The outcome of a started task from its latest record: its verdict when
// verified (kUnknown for a verdict this version does not know), skipped,
// failed (retryable ones too: a resumed run tries them again), else running.
Outcome OutcomeOf(Stage stage, std::string_view status);
Outcome OutcomeOf(const LatestRecord& record);
// Verified outcomes: accepted, rejected, not scorable.
bool IsVerifiedOutcome(Outcome outcome);

}  // namespace seragen::journal
