// The test evidence inside a verified record: round trip, names, bounds.
#include "seragen/journal/test_evidence.h"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "seragen/journal/record.h"

namespace seragen::journal {
namespace {

JournalRecord Verified(TestEvidence e) {
  JournalRecord r{"3fa2c0d1e5", Stage::kVerified, "accepted", 1};
  r.extra = VerificationResult{VerificationScores{}, 0.5, true, std::move(e)};
  return r;
}

using verify::TestFormat;
using verify::TestOutcome;
using verify::TestVerdict;

TestEvidence Sample() {
  TestEvidence e;
  e.format = TestFormat::kJUnitXml;
  e.agreement.verdict = TestVerdict::kAgree;
  e.base = {TestRunStatus::kRan, 0, 2, 2, 0, 0, 812};
  e.p1 = {TestRunStatus::kRan, 1, 2, 1, 1, 0, 790};
  e.p2 = {TestRunStatus::kRan, 1, 2, 1, 1, 0, 801};
  e.agreement.p1_changed = 1;
  e.agreement.reproduced = 1;
  e.agreement.changes = {
      {"tests.test_core::test_top_share \xff", TestOutcome::kPass, TestOutcome::kFail, TestOutcome::kFail}};
  return e;
}

}  // namespace

TEST_CASE("test evidence: a verified record keeps it through encode and decode", "[journal][evidence]") {
  const JournalRecord r = Verified(Sample());
  Result<std::string> line = EncodeRecord(r);
  REQUIRE(line.ok());
  CHECK(line->find("\"tests\":{\"format\":\"junit\",\"verdict\":\"agree\"") != std::string::npos);
  CHECK(line->find("\"base\":{\"status\":\"ran\",\"exit_code\":0,\"tests\":2") != std::string::npos);
  Result<JournalEntry> back = DecodeEntry(*line);
  REQUIRE(back.ok());
  REQUIRE(back->record->verification() != nullptr);
  CHECK(back->record->verification()->tests == Sample());  // the invalid UTF-8 byte too
  CHECK(*back->record == r);

  TestEvidence unavailable;
  unavailable.format = TestFormat::kExitStatus;
  unavailable.detail = "p1: the patch does not apply";
  unavailable.p1.status = TestRunStatus::kPatchFailed;
  CHECK(DecodeEntry(*EncodeRecord(Verified(unavailable)))->record->verification()->tests == unavailable);
}

TEST_CASE("test evidence: unknown names and missing runs are refused, changes are bounded", "[journal][evidence]") {
  std::string line = *EncodeRecord(Verified(Sample()));
  std::string bad = line;
  bad.replace(bad.find("\"agree\""), 7, "\"sure!\"");
  Result<JournalEntry> e = DecodeEntry(bad);
  REQUIRE_FALSE(e.ok());
  CHECK(e.status().message().find("extra.tests.verdict") != std::string::npos);
  bad = line;
  bad.replace(bad.find("\"p2\":{"), 6, "\"px\":{");
  CHECK_FALSE(DecodeEntry(bad).ok());

  TestEvidence many = Sample();
  many.agreement.changes.assign(kMaxRecordedChanges + 5, many.agreement.changes[0]);
  Result<JournalEntry> read = DecodeEntry(*EncodeRecord(Verified(many)));
  REQUIRE(read.ok());
  CHECK(read->record->verification()->tests->agreement.changes.size() == kMaxRecordedChanges);
  CHECK(read->record->verification()->tests->agreement.changes_truncated);
  // A record without evidence reads back without it (older writers).
  JournalRecord plain = Verified(Sample());
  std::get<VerificationResult>(plain.extra).tests.reset();
  CHECK_FALSE(DecodeEntry(*EncodeRecord(plain))->record->verification()->tests.has_value());
}

namespace {

// Every name of every enum the evidence holds, as earlier builds wrote them:
// the "tests" member of four verified records, each with the value it holds.
constexpr std::string_view kHead =
    R"({"type":"task","task_id":"3fa2c0d1e5","stage":"verified","status":"accepted","attempt":1,"extra":{"scores":)"
    R"({"p1_lines":0,"p2_lines":0,"matched":0,"recall":0.0,"precision":0.0,"f1":0.0,"scorable":false},)"
    R"("threshold":0.5,"rollout2_submitted":true,"tests":)";
constexpr std::string_view kRun = R"("exit_code":0,"tests":0,"passed":0,"failed":0,"skipped":0,"ms":0})";

std::vector<std::pair<std::string, TestEvidence>> EarlierLines() {
  const std::string zero = std::string(kRun);
  TestEvidence agree = Sample();
  agree.agreement.changes[0].test = "t::a";
  TestEvidence changed = Sample();
  changed.format = TestFormat::kGoJson;
  changed.agreement.verdict = TestVerdict::kDisagree;
  changed.p2.status = TestRunStatus::kTruncated;
  changed.agreement.regressed = 1;
  changed.agreement.changes = {{"pkg::TestA", std::nullopt, TestOutcome::kPass, TestOutcome::kSkip},
                               {"pkg::TestB", TestOutcome::kFail, std::nullopt, TestOutcome::kPass}};
  TestEvidence quiet;
  quiet.format = TestFormat::kTap;
  quiet.agreement.verdict = TestVerdict::kNoSignal;
  TestEvidence lost;
  lost.format = TestFormat::kExitStatus;
  lost.agreement.verdict = TestVerdict::kUnavailable;
  lost.detail = "base: no sandbox; p1: slow";
  lost.base.status = TestRunStatus::kNotStarted;
  lost.p1.status = TestRunStatus::kTimedOut;
  lost.p2.status = TestRunStatus::kPatchFailed;
  const std::string runs =
      R"("runs":{"base":{"status":"ran","exit_code":0,"tests":2,"passed":2,"failed":0,"skipped":0,"ms":812},)"
      R"("p1":{"status":"ran","exit_code":1,"tests":2,"passed":1,"failed":1,"skipped":0,"ms":790},)";
  return {
      {R"({"format":"junit","verdict":"agree",)" + runs +
           R"("p2":{"status":"ran","exit_code":1,"tests":2,"passed":1,"failed":1,"skipped":0,"ms":801}},)"
           R"("p1_changed":1,"reproduced":1,"regressed":0,)"
           R"("changes":[{"test":"t::a","base":"pass","p1":"fail","p2":"fail"}]})",
       agree},
      {R"({"format":"go-json","verdict":"disagree",)" + runs +
           R"("p2":{"status":"truncated","exit_code":1,"tests":2,"passed":1,"failed":1,"skipped":0,"ms":801}},)"
           R"("p1_changed":1,"reproduced":1,"regressed":1,"changes":[)"
           R"({"test":"pkg::TestA","base":"absent","p1":"pass","p2":"skip"},)"
           R"({"test":"pkg::TestB","base":"fail","p1":"absent","p2":"pass"}]})",
       changed},
      {R"({"format":"tap","verdict":"no_signal","runs":{"base":{"status":"ran",)" + zero + R"(,"p1":{"status":"ran",)" +
           zero + R"(,"p2":{"status":"ran",)" + zero + R"(},"p1_changed":0,"reproduced":0,"regressed":0,"changes":[]})",
       quiet},
      {R"({"format":"exit","verdict":"unavailable","detail":"base: no sandbox; p1: slow",)"
       R"("runs":{"base":{"status":"not_started",)" +
           zero + R"(,"p1":{"status":"timed_out",)" + zero + R"(,"p2":{"status":"patch_failed",)" + zero +
           R"(},"p1_changed":0,"reproduced":0,"regressed":0,"changes":[]})",
       lost},
  };
}

}  // namespace

TEST_CASE("test evidence: lines of earlier builds decode to the same values and encode to the same bytes",
          "[journal][evidence]") {
  for (const auto& [tests, value] : EarlierLines()) {
    const std::string line = std::string(kHead) + tests + "}}";
    INFO(line);
    Result<JournalEntry> read = DecodeEntry(line);
    REQUIRE(read.ok());
    REQUIRE(read->record->verification() != nullptr);
    CHECK(read->record->verification()->tests == value);
    CHECK(EncodeRecord(Verified(value)).value() == line);
  }
}

}  // namespace seragen::journal
