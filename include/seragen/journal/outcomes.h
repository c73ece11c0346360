// The outcome vocabulary of journal records, as named values: what a
// verified record's status, a judge_done record's status and an error class
// mean. Every reader of a journal asks these functions instead of comparing
// the strings itself. Pure; thread-safe.
#pragma once

#include <optional>
#include <string_view>

#include "seragen/journal/record.h"

namespace seragen::journal {

// The status of a verified record.
enum class Verdict { kAccepted, kRejected, kNotScorable };

// "accepted", "rejected", "not_scorable".
std::string_view VerdictName(Verdict verdict);
// Inverse of VerdictName; nullopt for any other text.
std::optional<Verdict> ParseVerdict(std::string_view status);
// The verdict of a verified record; nullopt for other stages and unknown text.
std::optional<Verdict> VerdictOf(Stage stage, std::string_view status);
std::optional<Verdict> VerdictOf(const JournalRecord& record);
// A verified record whose verdict is accepted.
bool IsAccepted(const JournalRecord& record);
bool IsAccepted(const LatestRecord& record);

// The status of a judge_done record: the judge said yes (the rollout-1
// attempt goes on) or anything else (it is rejected and retried).
enum class JudgeAnswer { kYes, kNo };

// "yes" is yes (exactly as the pipeline writes it); every other status is no.
JudgeAnswer ParseJudgeAnswer(std::string_view status);
std::string_view JudgeAnswerName(JudgeAnswer answer);  // "yes", "no"
// A judge_done record whose answer is not yes.
bool IsJudgeRejection(const JournalRecord& record);

// Who an error class blames, from its prefix: "infra." (the machinery: a
// resumed run retries) or anything else (the model).
enum class ErrorFamily { kInfra, kModel };

ErrorFamily ErrorFamilyOf(std::string_view error_class);
inline constexpr std::string_view kInfraErrorPrefix = "infra.";
inline constexpr std::string_view kModelErrorPrefix = "model.";

}  // namespace seragen::journal
