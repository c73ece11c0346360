// Journals written by seragen before the typed record extras existed (the
// demo flow against the scripted teacher, kept verbatim): they must keep
// loading, their "extra" objects decoding into the typed values.
#include <catch2/catch.hpp>

#include <string>

#include "seragen/base/file_util.h"
#include "seragen/journal/journal_reader.h"
#include "seragen/journal/record.h"
#include "testing/source_paths.h"

namespace seragen::journal {
namespace {

std::string Fixture(const std::string& name) { return seragen::testing::SourcePath("tests/journal/fixtures/") + name; }

}  // namespace

TEST_CASE("a journal from a run with the judge loads with its records", "[journal][fixture]") {
  auto loaded = LoadJournal(Fixture("v1_judge_run.jsonl"));
  REQUIRE(loaded.ok());
  CHECK(loaded->header.config_hash == "4b111137ab9bfc900a75228e9d19bb36244a91e7ab3d100a89246ab618dbce5c");
  CHECK(loaded->dropped_tail_bytes == 0);
  REQUIRE(loaded->records.size() == 30);
  const JournalRecord& r1 = loaded->records[0];
  CHECK(r1.task_id == "f4a36b19feda0df9523d");
  CHECK(r1.stage == Stage::kRollout1Done);
  CHECK(r1.extra ==
        RecordExtra(RolloutResult{true, "a669d8bb6276886351e2f846072c2d09f7f8436851198142d4104774f3a6893d"}));
  CHECK(r1.timings_ms.at("rollout") == 788);
  CHECK(r1.tokens == TokenUsage{11250, 227, 0, 6, 0});
  CHECK(r1.refs.at("rollout1") == "trajectories/f4a36b19feda0df9523d.r1.json");
  CHECK(loaded->records[1].extra == RecordExtra(IssueResult{"lanternjs-error-message"}));
  CHECK(loaded->records[2].stage == Stage::kJudgeDone);
  CHECK(loaded->records[2].status == "yes");
  CHECK(std::holds_alternative<std::monostate>(loaded->records[2].extra));
  CHECK(loaded->records[12].extra == RecordExtra(RolloutResult{true, ""}));  // rollout 2: no hash
  const JournalRecord& verified = loaded->records[13];
  CHECK(verified.stage == Stage::kVerified);
  CHECK(verified.status == "accepted");
  CHECK(verified.extra ==
        RecordExtra(VerificationResult{VerificationScores{"", 2, 2, 2, false, 1.0, 1.0, 1.0, true}, 0.5, true}));
  // Every typed extra writes back as the same "extra" object it was read from.
  std::string text = ReadFile(Fixture("v1_judge_run.jsonl")).value();
  std::size_t line_start = text.find('\n') + 1;
  for (const JournalRecord& r : loaded->records) {
    std::size_t line_end = text.find('\n', line_start);
    std::string line = text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    auto again = EncodeRecord(r);
    REQUIRE(again.ok());
    CHECK(*again == line);
  }
}

TEST_CASE("a resumed journal with failures loads its errors, attempts and rejected verdicts", "[journal][fixture]") {
  auto loaded = LoadJournal(Fixture("v1_resumed_run.jsonl"));
  REQUIRE(loaded.ok());
  REQUIRE(loaded->records.size() == 50);
  const JournalRecord& failed = loaded->records[0];
  CHECK(failed.stage == Stage::kFailed);
  CHECK(failed.status == "exit_llm_error");
  REQUIRE(failed.error.has_value());
  CHECK(failed.error->error_class == ErrorClass{ErrorFamily::kInfra, "exit_llm_error"});
  CHECK(failed.error->retryable);
  CHECK(failed.error->message.rfind("[llm:transient_server] HTTP 503", 0) == 0);
  CHECK(std::holds_alternative<std::monostate>(failed.extra));
  const JournalRecord& retried = loaded->records[11];
  CHECK(retried.attempt == 2);
  CHECK(retried.extra ==
        RecordExtra(RolloutResult{true, "043343f4551c58cf500ad01b1eb0551595d57ee5b6c84e530299d01a0ea10ef3"}));
  CHECK(loaded->records[12].extra == RecordExtra(IssueResult{"pebblegrid-perf"}));
  const JournalRecord& rejected = loaded->records[20];
  CHECK(rejected.status == "rejected");
  CHECK(rejected.extra ==
        RecordExtra(VerificationResult{VerificationScores{"", 2, 1, 0, false, 0.0, 0.0, 0.0, true}, 0.5, true}));
}

}  // namespace seragen::journal
