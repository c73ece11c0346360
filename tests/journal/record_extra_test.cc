// Typed record extras: round trip per kind, decoding rules, and text fields
// that survive any bytes (control characters, invalid UTF-8).
#include "seragen/journal/record_extra.h"

#include <catch2/catch.hpp>

#include <array>
#include <string>
#include <vector>

#include "seragen/base/rng.h"
#include "seragen/base/utf8.h"
#include "seragen/journal/record.h"

namespace seragen::journal {
namespace {

JournalRecord Decoded(const std::string& line) {
  auto entry = DecodeEntry(line);
  INFO(line);
  REQUIRE(entry.ok());
  REQUIRE(entry->record.has_value());
  return *entry->record;
}

JournalRecord RoundTrip(const JournalRecord& r) {
  auto line = EncodeRecord(r);
  REQUIRE(line.ok());
  CHECK(line->find('\n') == std::string::npos);
  CHECK(IsValidUtf8(*line));
  return Decoded(*line);
}

JournalRecord WithExtra(Stage stage, RecordExtra extra) {
  JournalRecord r{"3fa2c0d1e5", stage, "submitted", 1};
  r.extra = std::move(extra);
  return r;
}

}  // namespace

TEST_CASE("rollout results round-trip for both rollouts", "[journal][extra]") {
  JournalRecord r1 = WithExtra(Stage::kRollout1Done, RolloutResult{true, std::string(64, 'a')});
  auto line = EncodeRecord(r1);
  REQUIRE(line.ok());
  CHECK(line->find(R"("extra":{"has_patch":true,"patch_sha256":"aaaa)") != std::string::npos);
  CHECK(RoundTrip(r1) == r1);
  REQUIRE(RoundTrip(r1).rollout() != nullptr);
  CHECK(RoundTrip(r1).rollout()->patch_sha256 == std::string(64, 'a'));
  // No patch: no hash written, and the same struct comes back.
  JournalRecord r2 = WithExtra(Stage::kRollout2Done, RolloutResult{false, ""});
  CHECK(EncodeRecord(r2)->find(R"("extra":{"has_patch":false})") != std::string::npos);
  CHECK(RoundTrip(r2) == r2);
}

TEST_CASE("a resumed rollout's replay and restart counts round-trip, absent when zero", "[journal][extra]") {
  JournalRecord r = WithExtra(Stage::kRollout1Done, RolloutResult{true, "", 7, 1, 5120});
  auto line = EncodeRecord(r);
  REQUIRE(line.ok());
  CHECK(line->find(R"("extra":{"has_patch":true,"replayed_calls":7,"restarts":1,"discarded_tokens":5120})") !=
        std::string::npos);
  CHECK(RoundTrip(r) == r);
  // Records written before these fields existed read as zero.
  auto old = DecodeEntry(
      R"({"type":"task","task_id":"t","stage":"rollout2_done","status":"submitted","attempt":1,"at":"x","extra":{"has_patch":true}})");
  REQUIRE(old.ok());
  CHECK(old->record->rollout()->replayed_calls == 0);
  CHECK(old->record->rollout()->restarts == 0);
  auto bad = DecodeEntry(
      R"({"type":"task","task_id":"t","stage":"rollout2_done","status":"submitted","attempt":1,"at":"x","extra":{"restarts":-1}})");
  CHECK(bad.status().code() == StatusCode::kParseError);
}

TEST_CASE("a rollout's environment failures round-trip, absent when zero", "[journal][extra]") {
  RolloutResult rr{true, ""};
  rr.env_broken = 3;
  JournalRecord r = WithExtra(Stage::kRollout2Done, rr);
  auto line = EncodeRecord(r);
  REQUIRE(line.ok());
  CHECK(line->find(R"("env_broken":3)") != std::string::npos);
  CHECK(RoundTrip(r) == r);
  CHECK(RoundTrip(r).rollout()->env_broken == 3);
  rr.env_broken = 0;
  CHECK(EncodeRecord(WithExtra(Stage::kRollout2Done, rr))->find("env_broken") == std::string::npos);
}

TEST_CASE("issue results round-trip", "[journal][extra]") {
  JournalRecord r = WithExtra(Stage::kIssueDone, IssueResult{"lanternjs-error-message"});
  CHECK(EncodeRecord(r)->find(R"("extra":{"demo_issue":"lanternjs-error-message"})") != std::string::npos);
  CHECK(RoundTrip(r) == r);
  REQUIRE(RoundTrip(r).issue() != nullptr);
  CHECK(RoundTrip(r).issue()->demo_issue == "lanternjs-error-message");
  // Retries of the issue writer are written only when there were some.
  JournalRecord retried = WithExtra(Stage::kIssueDone, IssueResult{"d", 4, "commits"});
  CHECK(EncodeRecord(retried)->find(R"("extra":{"demo_issue":"d","retries":4,"demo_source":"commits"})") !=
        std::string::npos);
  CHECK(RoundTrip(retried) == retried);
}

TEST_CASE("verification results round-trip with exact doubles", "[journal][extra]") {
  VerificationScores s{"", 7, 3, 2, false, 2.0 / 7, 2.0 / 3, 2 * (2.0 / 7) * (2.0 / 3) / (2.0 / 7 + 2.0 / 3), true};
  JournalRecord r = WithExtra(Stage::kVerified, VerificationResult{s, 0.7, true});
  r.status = "rejected";
  CHECK(RoundTrip(r) == r);
  // Without a rule (records of writers before verify rules) neither rule nor p2_blank is written.
  CHECK(EncodeRecord(r)->find(R"("extra":{"scores":{"p1_lines":7,"p2_lines":3,"matched":2,"recall":)") !=
        std::string::npos);
  // With one, both are.
  s.rule = "sera";
  s.p2_blank = true;
  JournalRecord ruled = WithExtra(Stage::kVerified, VerificationResult{s, 0.7, true});
  CHECK(RoundTrip(ruled) == ruled);
  CHECK(EncodeRecord(ruled)->find(
            R"("scores":{"rule":"sera","p1_lines":7,"p2_lines":3,"matched":2,"p2_blank":true,)") != std::string::npos);
  // Nothing recorded: the scores and threshold stay absent.
  JournalRecord bare = WithExtra(Stage::kVerified, VerificationResult{});
  CHECK(EncodeRecord(bare)->find(R"("extra":{"rollout2_submitted":false})") != std::string::npos);
  CHECK(RoundTrip(bare) == bare);
}

TEST_CASE("stages without extra data decode none, and unknown members are ignored", "[journal][extra]") {
  // A newer writer's extra on a stage that carries none, and an unknown member.
  JournalRecord skipped =
      Decoded(R"({"type":"task","task_id":"a","stage":"skipped","attempt":1,"extra":{"why":"judge"}})");
  CHECK(std::holds_alternative<std::monostate>(skipped.extra));
  JournalRecord issue =
      Decoded(R"({"type":"task","task_id":"a","stage":"issue_done","extra":{"demo_issue":"d","later":[1,{}]}})");
  REQUIRE(issue.issue() != nullptr);
  CHECK(issue.issue()->demo_issue == "d");
  // A record without "extra" has none, whatever its stage.
  JournalRecord plain = Decoded(R"({"type":"task","task_id":"a","stage":"verified"})");
  CHECK(plain.verification() == nullptr);
  // An older writer's threshold written as "0.500000" reads as 0.5.
  JournalRecord old = Decoded(R"({"type":"task","task_id":"a","stage":"verified","extra":{"threshold":0.500000}})");
  REQUIRE(old.verification() != nullptr);
  CHECK(old.verification()->threshold == 0.5);
  CHECK_FALSE(old.verification()->scores.has_value());
}

TEST_CASE("a known extra member of the wrong type is a parse error naming it", "[journal][extra]") {
  struct Case {
    const char* line;
    const char* field;
  };
  const std::array<Case, 8> cases = {{
      {R"({"type":"task","task_id":"a","stage":"rollout1_done","extra":{"has_patch":"yes"}})", "extra.has_patch"},
      {R"({"type":"task","task_id":"a","stage":"rollout1_done","extra":{"patch_sha256":5}})", "extra.patch_sha256"},
      {R"({"type":"task","task_id":"a","stage":"issue_done","extra":{"demo_issue":null}})", "extra.demo_issue"},
      {R"({"type":"task","task_id":"a","stage":"verified","extra":{"scores":[1]}})", "extra.scores"},
      {R"({"type":"task","task_id":"a","stage":"verified","extra":{"scores":{"p1_lines":1,"p2_lines":1}}})",
       "extra.scores.matched"},
      {R"({"type":"task","task_id":"a","stage":"verified","extra":{"scores":{"p1_lines":-1,"p2_lines":1,"matched":0}}})",
       "extra.scores.p1_lines"},
      {R"({"type":"task","task_id":"a","stage":"verified","extra":{"threshold":"0.5"}})", "extra.threshold"},
      {R"({"type":"task","task_id":"a","stage":"issue_done","extra":{"demo_issue_base64":"%%"}})",
       "extra.demo_issue_base64"},
  }};
  for (const Case& c : cases) {
    auto entry = DecodeEntry(c.line);
    INFO(c.line);
    REQUIRE_FALSE(entry.ok());
    CHECK(entry.status().code() == StatusCode::kParseError);
    CHECK(entry.status().message().find(std::string("'") + c.field + "'") != std::string::npos);
  }
}

namespace {

// Random bytes biased towards what breaks hand-made JSON: control
// characters, quotes, backslashes, ill-formed UTF-8 (lone continuation
// bytes, overlongs, surrogates, truncated sequences, Latin-1), and valid
// multi-byte characters.
std::string HostileText(Rng& rng) {
  static const std::vector<std::string> kPieces = {std::string(1, '\0'),
                                                   "\n",
                                                   "\r",
                                                   "\t",
                                                   "\x1b[31m",
                                                   "\x7f",
                                                   "\"",
                                                   "\\",
                                                   "\\u0000",
                                                   "}",
                                                   "{\"a\":",
                                                   "\x80",
                                                   "\xbf",
                                                   "\xc0\x80",
                                                   "\xc1\xbf",
                                                   "\xed\xa0\x80",
                                                   "\xf4\x90\x80\x80",
                                                   "\xe2\x9c",
                                                   "\xf0\x9f\x98",
                                                   "\xe9t\xe9",
                                                   "\xff\xfe",
                                                   "\xc3\xa9",
                                                   "\xe2\x9c\x93",
                                                   "\xf0\x9f\x98\x80",
                                                   "plain",
                                                   " ",
                                                   "_base64"};
  std::string out;
  const std::uint64_t n = rng.Uniform(6);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (rng.Bernoulli(0.2)) {
      out += static_cast<char>(rng.Uniform(256));
    } else {
      out += kPieces[rng.Uniform(kPieces.size())];
    }
  }
  return out;
}

}  // namespace

TEST_CASE("every text field survives control characters and invalid UTF-8 exactly", "[journal][extra][fuzz]") {
  Rng rng(20261123);
  for (int round = 0; round < 2000; ++round) {
    JournalRecord r;
    r.task_id = "t" + HostileText(rng);
    r.status = HostileText(rng);
    r.attempt = 1 + static_cast<int>(rng.Uniform(3));
    r.at = HostileText(rng);
    r.error = ErrorInfo{ParseErrorClass(HostileText(rng)), HostileText(rng), rng.Bernoulli(0.5)};
    // Names must be UTF-8 (checked below); control characters are fine.
    r.timings_ms = {{RepairUtf8(HostileText(rng)), static_cast<std::int64_t>(rng.Uniform(1000))}};
    r.refs = {{RepairUtf8(HostileText(rng)), "trajectories/" + RepairUtf8(HostileText(rng)) + ".json"}};
    switch (rng.Uniform(3)) {
      case 0:
        r.stage = Stage::kRollout1Done;
        r.extra = RolloutResult{true, HostileText(rng)};
        break;
      case 1:
        r.stage = Stage::kIssueDone;
        r.extra = IssueResult{HostileText(rng)};
        break;
      default: r.stage = Stage::kFailed; break;
    }
    INFO("round " << round);
    CHECK(RoundTrip(r) == r);

    JournalHeader h;
    h.config_hash = HostileText(rng);
    h.created = HostileText(rng);
    std::string header_line = EncodeHeader(h);
    CHECK(header_line.find('\n') == std::string::npos);
    auto header = DecodeHeader(header_line);
    REQUIRE(header.ok());
    CHECK(*header == h);

    ConfigHashChange c{HostileText(rng), HostileText(rng), HostileText(rng)};
    auto change = DecodeEntry(EncodeConfigHashChange(c));
    REQUIRE(change.ok());
    REQUIRE(change->config_change.has_value());
    CHECK(*change->config_change == c);

    // A name that is not UTF-8 is refused with a clear error, never written mangled.
    std::string bad_name = HostileText(rng) + "\xff";
    JournalRecord named = r;
    named.timings_ms = {{bad_name, 1}};
    CHECK(EncodeRecord(named).status().code() == StatusCode::kInvalidArgument);
    named = r;
    named.refs = {{"rollout1", "trajectories/" + bad_name}};
    CHECK(EncodeRecord(named).status().code() == StatusCode::kInvalidArgument);
  }
}

}  // namespace seragen::journal
