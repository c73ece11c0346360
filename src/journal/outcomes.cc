#include "seragen/journal/outcomes.h"

#include <array>

namespace seragen::journal {
namespace {

// By each enum's value.
constexpr std::string_view kVerdictNames[] = {"accepted", "not_scorable", "rejected", "unknown"};
constexpr std::string_view kSkipNames[] = {"duplicate_p1",      "empty_p1",  "judge_no",
                                           "judge_unparseable", "rollout1_", "unknown"};
constexpr std::string_view kJudgeNames[] = {"yes", "no", "unparseable", "", ""};
constexpr std::string_view kOutcomeNames[] = {"accepted", "failed",  "not_scorable", "planned",
                                              "rejected", "running", "skipped",      "unknown"};
// The rollout exit status of a hand-in (agent::ExitStatusName's "submitted").
constexpr std::string_view kSubmitted = "submitted";

template <typename E, std::size_t N>
E ParseName(const std::string_view (&names)[N], std::string_view text, E unknown) {
  for (std::size_t i = 0; i < N; ++i) {
    if (!names[i].empty() && static_cast<E>(i) != unknown && text == names[i]) return static_cast<E>(i);
  }
  return unknown;
}

}  // namespace

std::string_view VerdictName(Verdict verdict) { return kVerdictNames[static_cast<int>(verdict)]; }

Verdict ParseVerdict(std::string_view status) { return ParseName(kVerdictNames, status, Verdict::kUnknown); }

std::optional<Verdict> VerdictOf(Stage stage, std::string_view status) {
  if (stage != Stage::kVerified) return std::nullopt;
  return ParseVerdict(status);
}

std::optional<Verdict> VerdictOf(const JournalRecord& record) { return VerdictOf(record.stage, record.status); }

bool IsAccepted(const JournalRecord& record) { return VerdictOf(record) == Verdict::kAccepted; }

bool IsAccepted(const LatestRecord& record) { return VerdictOf(record.stage, record.status) == Verdict::kAccepted; }

std::string SkipReasonName(const SkipReason& reason) {
  std::string name(kSkipNames[static_cast<int>(reason.kind)]);
  if (reason.kind == SkipKind::kRollout1Ended) name += reason.exit;
  return name;
}

SkipReason ParseSkipReason(std::string_view status) {
  const std::string_view rollout1 = kSkipNames[static_cast<int>(SkipKind::kRollout1Ended)];
  if (status.size() > rollout1.size() && status.starts_with(rollout1)) {
    return {SkipKind::kRollout1Ended, std::string(status.substr(rollout1.size()))};
  }
  SkipReason reason{ParseName(kSkipNames, status, SkipKind::kUnknown), ""};
  return reason.kind == SkipKind::kRollout1Ended ? SkipReason{} : reason;
}

std::string_view JudgeAnswerName(JudgeAnswer answer) { return kJudgeNames[static_cast<int>(answer)]; }

JudgeAnswer ParseJudgeAnswer(std::string_view status) {
  JudgeAnswer answer = ParseName(kJudgeNames, status, JudgeAnswer::kUnknown);
  if (answer == JudgeAnswer::kUnknown && ParseSkipReason(status).kind != SkipKind::kUnknown) {
    return JudgeAnswer::kNotJudged;
  }
  return answer;
}

bool IsJudgeRejection(const JournalRecord& record) {
  return record.stage == Stage::kJudgeDone && ParseJudgeAnswer(record.status) != JudgeAnswer::kYes;
}

SkipReason SkipAfterJudge(JudgeAnswer answer) {
  return {answer == JudgeAnswer::kUnparseable ? SkipKind::kJudgeUnparseable : SkipKind::kJudgeNo, ""};
}

bool IsJudgeSkip(const LatestRecord& record) {
  if (record.stage != Stage::kSkipped) return false;
  const SkipKind kind = ParseSkipReason(record.status).kind;
  return kind == SkipKind::kJudgeNo || kind == SkipKind::kJudgeUnparseable;
}

bool IsSubmittedRollout(const JournalRecord& record) {
  return (record.stage == Stage::kRollout1Done || record.stage == Stage::kRollout2Done) && record.status == kSubmitted;
}

std::string_view OutcomeName(Outcome outcome) { return kOutcomeNames[static_cast<int>(outcome)]; }

Outcome OutcomeOf(const LatestRecord& record) { return OutcomeOf(record.stage, record.status); }

Outcome OutcomeOf(Stage stage, std::string_view status) {
  switch (stage) {
    case Stage::kVerified:
      switch (ParseVerdict(status)) {
        case Verdict::kAccepted: return Outcome::kAccepted;
        case Verdict::kRejected: return Outcome::kRejected;
        case Verdict::kNotScorable: return Outcome::kNotScorable;
        case Verdict::kUnknown: return Outcome::kUnknown;
      }
      return Outcome::kUnknown;
    case Stage::kSkipped: return Outcome::kSkipped;
    case Stage::kFailed: return Outcome::kFailed;
    default: return Outcome::kRunning;
  }
}

bool IsVerifiedOutcome(Outcome outcome) {
  return outcome == Outcome::kAccepted || outcome == Outcome::kRejected || outcome == Outcome::kNotScorable;
}

}  // namespace seragen::journal
