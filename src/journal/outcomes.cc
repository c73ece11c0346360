#include "seragen/journal/outcomes.h"

namespace seragen::journal {
namespace {

// By Verdict's value.
constexpr std::string_view kVerdictNames[] = {"accepted", "rejected", "not_scorable"};

}  // namespace

std::string_view VerdictName(Verdict verdict) { return kVerdictNames[static_cast<int>(verdict)]; }

std::optional<Verdict> ParseVerdict(std::string_view status) {
  for (Verdict v : {Verdict::kAccepted, Verdict::kRejected, Verdict::kNotScorable}) {
    if (status == VerdictName(v)) return v;
  }
  return std::nullopt;
}

std::optional<Verdict> VerdictOf(Stage stage, std::string_view status) {
  if (stage != Stage::kVerified) return std::nullopt;
  return ParseVerdict(status);
}

std::optional<Verdict> VerdictOf(const JournalRecord& record) { return VerdictOf(record.stage, record.status); }

bool IsAccepted(const JournalRecord& record) { return VerdictOf(record) == Verdict::kAccepted; }

bool IsAccepted(const LatestRecord& record) { return VerdictOf(record.stage, record.status) == Verdict::kAccepted; }

JudgeAnswer ParseJudgeAnswer(std::string_view status) {
  return status == JudgeAnswerName(JudgeAnswer::kYes) ? JudgeAnswer::kYes : JudgeAnswer::kNo;
}

std::string_view JudgeAnswerName(JudgeAnswer answer) { return answer == JudgeAnswer::kYes ? "yes" : "no"; }

bool IsJudgeRejection(const JournalRecord& record) {
  return record.stage == Stage::kJudgeDone && ParseJudgeAnswer(record.status) == JudgeAnswer::kNo;
}

ErrorFamily ErrorFamilyOf(std::string_view error_class) {
  return error_class.starts_with(kInfraErrorPrefix) ? ErrorFamily::kInfra : ErrorFamily::kModel;
}

}  // namespace seragen::journal
