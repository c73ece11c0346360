#include "seragen/journal/outcomes.h"

#include <catch2/catch.hpp>

#include <string>

#include "seragen/journal/error_class.h"

namespace seragen::journal {
namespace {

JournalRecord Rec(Stage stage, std::string status) {
  JournalRecord r;
  r.task_id = "t";
  r.stage = stage;
  r.status = std::move(status);
  return r;
}

}  // namespace

TEST_CASE("outcome names round-trip and unknown text is the unknown value", "[journal][outcomes]") {
  for (Verdict v : {Verdict::kAccepted, Verdict::kNotScorable, Verdict::kRejected}) {
    CHECK(ParseVerdict(VerdictName(v)) == v);
  }
  CHECK(ParseVerdict("ACCEPTED") == Verdict::kUnknown);
  CHECK(ParseVerdict("unknown") == Verdict::kUnknown);
  CHECK(ParseVerdict("") == Verdict::kUnknown);
  for (JudgeAnswer a : {JudgeAnswer::kYes, JudgeAnswer::kNo, JudgeAnswer::kUnparseable}) {
    CHECK(ParseJudgeAnswer(JudgeAnswerName(a)) == a);
  }
  CHECK(ParseJudgeAnswer("empty_p1") == JudgeAnswer::kNotJudged);
  CHECK(ParseJudgeAnswer("rollout1_exit_format") == JudgeAnswer::kNotJudged);
  CHECK(ParseJudgeAnswer("") == JudgeAnswer::kUnknown);
  CHECK(ParseJudgeAnswer("Yes") == JudgeAnswer::kUnknown);
  for (SkipKind k : {SkipKind::kDuplicateP1, SkipKind::kEmptyP1, SkipKind::kJudgeNo, SkipKind::kJudgeUnparseable}) {
    CHECK(ParseSkipReason(SkipReasonName({k, ""})) == SkipReason{k, ""});
  }
  SkipReason ended{SkipKind::kRollout1Ended, "exit_format"};
  CHECK(SkipReasonName(ended) == "rollout1_exit_format");
  CHECK(ParseSkipReason("rollout1_exit_format") == ended);
  CHECK(ParseSkipReason("rollout1_").kind == SkipKind::kUnknown);
  CHECK(ParseSkipReason("judge_maybe").kind == SkipKind::kUnknown);
  CHECK(SkipAfterJudge(JudgeAnswer::kNo) == SkipReason{SkipKind::kJudgeNo, ""});
  CHECK(SkipAfterJudge(JudgeAnswer::kUnparseable) == SkipReason{SkipKind::kJudgeUnparseable, ""});
}

TEST_CASE("names sort in the order of their values", "[journal][outcomes]") {
  // Maps keyed by these values list in the order a map keyed by text did.
  CHECK(VerdictName(Verdict::kAccepted) < VerdictName(Verdict::kNotScorable));
  CHECK(VerdictName(Verdict::kNotScorable) < VerdictName(Verdict::kRejected));
  CHECK(VerdictName(Verdict::kRejected) < VerdictName(Verdict::kUnknown));
  for (int i = 0; i + 1 < 8; ++i) {
    CHECK(OutcomeName(static_cast<Outcome>(i)) < OutcomeName(static_cast<Outcome>(i + 1)));
  }
  for (int i = 0; i + 1 < 4; ++i) {
    CHECK(SkipReasonName({static_cast<SkipKind>(i), ""}) < SkipReasonName({static_cast<SkipKind>(i + 1), ""}));
    CHECK(ErrorFamilyName(static_cast<ErrorFamily>(i)) < ErrorFamilyName(static_cast<ErrorFamily>(i + 1)));
  }
}

TEST_CASE("error classes split into family and cause and encode back unchanged", "[journal][outcomes]") {
  CHECK(ParseErrorClass("infra.issue.rate_limited") == ErrorClass{ErrorFamily::kInfra, "issue.rate_limited"});
  CHECK(ParseErrorClass("model.exit_format") == ErrorClass{ErrorFamily::kModel, "exit_format"});
  CHECK(ParseErrorClass("config.exit_config") == ErrorClass{ErrorFamily::kConfig, "exit_config"});
  // Text with no known family: an older or damaged journal.
  for (const char* text : {"", "infra", "oops.thing", "Infra.x", ".x", "unknown.x", "\xff\xfe"}) {
    ErrorClass c = ParseErrorClass(text);
    CHECK(c.family == ErrorFamily::kUnknown);
    CHECK(ErrorClassName(c) == text);
  }
  for (const char* text : {"infra.", "model.a.b.c", "config.x"}) CHECK(ErrorClassName(ParseErrorClass(text)) == text);
}

TEST_CASE("judge rejections, verdicts and hand-ins are read from typed values", "[journal][outcomes]") {
  CHECK_FALSE(IsJudgeRejection(Rec(Stage::kJudgeDone, "yes")));
  CHECK(IsJudgeRejection(Rec(Stage::kJudgeDone, "no")));
  CHECK(IsJudgeRejection(Rec(Stage::kJudgeDone, "unparseable")));
  CHECK(IsJudgeRejection(Rec(Stage::kJudgeDone, "empty_p1")));
  CHECK(IsJudgeRejection(Rec(Stage::kJudgeDone, "garbage")));
  CHECK_FALSE(IsJudgeRejection(Rec(Stage::kSkipped, "no")));
  CHECK(IsAccepted(Rec(Stage::kVerified, "accepted")));
  CHECK_FALSE(IsAccepted(Rec(Stage::kSkipped, "accepted")));
  CHECK(VerdictOf(Rec(Stage::kVerified, "bogus")) == Verdict::kUnknown);
  CHECK(VerdictOf(Rec(Stage::kIssueDone, "accepted")) == std::nullopt);
  CHECK(IsSubmittedRollout(Rec(Stage::kRollout1Done, "submitted")));
  CHECK(IsSubmittedRollout(Rec(Stage::kRollout2Done, "submitted")));
  CHECK_FALSE(IsSubmittedRollout(Rec(Stage::kRollout2Done, "exit_format")));
  CHECK_FALSE(IsSubmittedRollout(Rec(Stage::kVerified, "submitted")));
}

TEST_CASE("a task's outcome comes from its latest record", "[journal][outcomes]") {
  auto outcome = [](Stage stage, const char* status) { return OutcomeOf(LatestRecord(Rec(stage, status))); };
  CHECK(outcome(Stage::kVerified, "accepted") == Outcome::kAccepted);
  CHECK(outcome(Stage::kVerified, "rejected") == Outcome::kRejected);
  CHECK(outcome(Stage::kVerified, "not_scorable") == Outcome::kNotScorable);
  CHECK(outcome(Stage::kVerified, "42") == Outcome::kUnknown);
  CHECK(outcome(Stage::kSkipped, "judge_no") == Outcome::kSkipped);
  CHECK(outcome(Stage::kFailed, "issue") == Outcome::kFailed);
  CHECK(outcome(Stage::kIssueDone, "written") == Outcome::kRunning);
  CHECK(IsVerifiedOutcome(Outcome::kNotScorable));
  CHECK_FALSE(IsVerifiedOutcome(Outcome::kUnknown));
  CHECK_FALSE(IsVerifiedOutcome(Outcome::kSkipped));
}

}  // namespace seragen::journal
