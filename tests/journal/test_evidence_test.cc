// The test evidence inside a verified record: round trip, names, bounds.
#include "seragen/journal/test_evidence.h"

#include <catch2/catch.hpp>

#include <string>

#include "seragen/journal/record.h"

namespace seragen::journal {
namespace {

JournalRecord Verified(TestEvidence e) {
  JournalRecord r{"3fa2c0d1e5", Stage::kVerified, "accepted", 1};
  r.extra = VerificationResult{VerificationScores{}, 0.5, true, std::move(e)};
  return r;
}

TestEvidence Sample() {
  TestEvidence e;
  e.format = "junit";
  e.verdict = EvidenceVerdict::kAgree;
  e.base = {TestRunStatus::kRan, 0, 2, 2, 0, 0, 812};
  e.p1 = {TestRunStatus::kRan, 1, 2, 1, 1, 0, 790};
  e.p2 = {TestRunStatus::kRan, 1, 2, 1, 1, 0, 801};
  e.p1_changed = 1;
  e.reproduced = 1;
  e.changes = {
      {"tests.test_core::test_top_share \xff", RecordedOutcome::kPass, RecordedOutcome::kFail, RecordedOutcome::kFail}};
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
  unavailable.format = "exit";
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
  many.changes.assign(kMaxRecordedChanges + 5, many.changes[0]);
  Result<JournalEntry> read = DecodeEntry(*EncodeRecord(Verified(many)));
  REQUIRE(read.ok());
  CHECK(read->record->verification()->tests->changes.size() == kMaxRecordedChanges);
  CHECK(read->record->verification()->tests->changes_truncated);
  // A record without evidence reads back without it (older writers).
  JournalRecord plain = Verified(Sample());
  std::get<VerificationResult>(plain.extra).tests.reset();
  CHECK_FALSE(DecodeEntry(*EncodeRecord(plain))->record->verification()->tests.has_value());
}

}  // namespace seragen::journal
