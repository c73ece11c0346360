#include "seragen/journal/record.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <utility>
#include <vector>

namespace seragen::journal {

namespace {
JournalRecord FullRecord() {
  JournalRecord r;
  r.task_id = "3fa2c0d1e5";
  r.stage = Stage::kRollout2Done;
  r.status = "submitted";
  r.attempt = 2;
  r.at = "2026-11-21T12:00:00.123Z";
  r.timings_ms = {{"rollout", 8123}, {"queue", 5}};
  r.tokens = {1000, 200, 50, 7, 640};
  r.endpoint_tokens = {{"http://gpu0:8000/v1", {600, 150, 50, 4, 600}},
                       {"https://api.example/v1", {400, 50, 0, 2, 40}}};
  r.refs = {{"trajectory", "trajectories/3fa2.r2.json"}, {"patch", "patches/3fa2.p2.diff"}};
  r.error = ErrorInfo{ParseErrorClass("model.exit_format"), "three bad turns\nin a row \"quoted\" \xe2\x9c\x93", true};
  r.extra = RolloutResult{true, ""};
  return r;
}
}  // namespace

TEST_CASE("stage names round-trip and unknown names are refused", "[journal][record]") {
  for (Stage s : {Stage::kPlanned, Stage::kRollout1Done, Stage::kIssueDone, Stage::kJudgeDone, Stage::kRollout2Done,
                  Stage::kVerified, Stage::kFailed, Stage::kSkipped}) {
    auto back = ParseStage(StageName(s));
    REQUIRE(back.ok());
    CHECK(*back == s);
  }
  CHECK(StageName(Stage::kRollout1Done) == "rollout1_done");
  auto bad = ParseStage("rollout3_done");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("rollout3_done") != std::string::npos);
  CHECK(IsTerminalStage(Stage::kVerified));
  CHECK(IsTerminalStage(Stage::kFailed));
  CHECK(IsTerminalStage(Stage::kSkipped));
  CHECK_FALSE(IsTerminalStage(Stage::kRollout2Done));
}

TEST_CASE("a record with every field round-trips on one line", "[journal][record]") {
  JournalRecord r = FullRecord();
  auto line = EncodeRecord(r);
  REQUIRE(line.ok());
  CHECK(line->find('\n') == std::string::npos);
  auto entry = DecodeEntry(*line);
  REQUIRE(entry.ok());
  REQUIRE(entry->record.has_value());
  CHECK_FALSE(entry->config_change.has_value());
  CHECK(*entry->record == r);
}

TEST_CASE("a minimal record omits empty fields and decodes with defaults", "[journal][record]") {
  JournalRecord r;
  r.task_id = "t1";
  auto line = EncodeRecord(r);
  REQUIRE(line.ok());
  CHECK(*line == R"({"type":"task","task_id":"t1","stage":"planned","attempt":1})");
  auto entry = DecodeEntry(*line);
  REQUIRE(entry.ok());
  CHECK(*entry->record == r);
}

TEST_CASE("invalid UTF-8 in a record is written repaired plus its exact bytes, never an exception",
          "[journal][record]") {
  JournalRecord r;
  r.task_id = "t1";
  r.status = std::string("bad \xff\xfe bytes");
  auto line = EncodeRecord(r);
  REQUIRE(line.ok());
  // Readers that do not know "status_base64" see the repaired text.
  CHECK(line->find("\"status\":\"bad \xef\xbf\xbd\xef\xbf\xbd bytes\",\"status_base64\":\"YmFkIP/+IGJ5dGVz\"") !=
        std::string::npos);
  auto entry = DecodeEntry(*line);
  REQUIRE(entry.ok());
  CHECK(entry->record->status == r.status);
}

TEST_CASE("records that break the rules are refused before writing", "[journal][record]") {
  JournalRecord r;
  CHECK(EncodeRecord(r).status().code() == StatusCode::kInvalidArgument);  // no task id
  r.task_id = "t1";
  r.attempt = 0;
  CHECK(EncodeRecord(r).status().message().find("attempt") != std::string::npos);
  r.attempt = 1;
  r.extra = IssueResult{"demo"};  // a planned record carries no extra
  CHECK(EncodeRecord(r).status().message().find("extra") != std::string::npos);
  r.stage = Stage::kRollout1Done;  // nor does rollout 1 carry an issue's
  CHECK(EncodeRecord(r).status().code() == StatusCode::kInvalidArgument);
  r.extra = std::monostate();
  r.timings_ms = {{"bad \xff", 1}};
  CHECK(EncodeRecord(r).status().message().find("not valid UTF-8") != std::string::npos);
  r.timings_ms.clear();
  r.refs = {{"rollout1", "trajectories/\xc0\x80.json"}};
  CHECK(EncodeRecord(r).status().message().find("not valid UTF-8") != std::string::npos);
  r.refs = {{"trajectory", "/abs/path.json"}};
  CHECK(EncodeRecord(r).status().message().find("relative") != std::string::npos);
  r.refs = {{"trajectory", "trajectories/../../escape.json"}};
  CHECK(EncodeRecord(r).status().message().find("inside") != std::string::npos);
  r.refs = {{"trajectory", "trajectories/..hidden/ok.json"}};
  CHECK(EncodeRecord(r).ok());
}

TEST_CASE("decoding tells torn bytes from schema errors", "[journal][record]") {
  // Not a complete JSON object: data loss (torn or damaged).
  for (const std::string& torn :
       std::vector<std::string>{"", "{\"type\":\"task\",\"task_i", "garbage", std::string("\0\0\0", 3), "[1]", "42"}) {
    auto e = DecodeEntry(torn);
    REQUIRE_FALSE(e.ok());
    CHECK(e.status().code() == StatusCode::kDataLoss);
  }
  // Complete JSON that breaks the schema: parse error naming the problem.
  auto unknown_stage = DecodeEntry(R"({"type":"task","task_id":"a","stage":"dancing"})");
  CHECK(unknown_stage.status().code() == StatusCode::kParseError);
  CHECK(unknown_stage.status().message().find("dancing") != std::string::npos);
  auto unknown_type = DecodeEntry(R"({"type":"gossip"})");
  CHECK(unknown_type.status().code() == StatusCode::kParseError);
  CHECK(unknown_type.status().message().find("gossip") != std::string::npos);
  auto wrong_type = DecodeEntry(R"({"type":"task","task_id":"a","stage":"planned","attempt":"2"})");
  CHECK(wrong_type.status().message().find("attempt") != std::string::npos);
  auto bad_ref = DecodeEntry(R"({"type":"task","task_id":"a","stage":"planned","refs":{"t":3}})");
  CHECK(bad_ref.status().message().find("refs.t") != std::string::npos);
  auto missing_id = DecodeEntry(R"({"type":"task","stage":"planned"})");
  CHECK(missing_id.status().message().find("task_id") != std::string::npos);
}

TEST_CASE("header round-trips and wrong format and version are clear errors", "[journal][record]") {
  JournalHeader h;
  h.config_hash = "abc123";
  h.shard = 2;
  h.shards = 8;
  h.created = "2026-11-21T12:00:00.000Z";
  std::string line = EncodeHeader(h);
  CHECK(line.rfind(R"({"format":"seragen-journal","version":1,)", 0) == 0);
  auto back = DecodeHeader(line);
  REQUIRE(back.ok());
  CHECK(*back == h);

  auto v2 = DecodeHeader(R"({"format":"seragen-journal","version":2,"config_hash":"x","shard":0,"shards":1})");
  REQUIRE_FALSE(v2.ok());
  CHECK(v2.status().code() == StatusCode::kFailedPrecondition);
  CHECK(v2.status().message().find("version 2") != std::string::npos);
  CHECK(v2.status().message().find("version 1") != std::string::npos);

  auto other = DecodeHeader(R"({"format":"something-else","version":1})");
  CHECK(other.status().code() == StatusCode::kParseError);
  CHECK(other.status().message().find("not a seragen journal") != std::string::npos);

  auto bad_shard = DecodeHeader(R"({"format":"seragen-journal","version":1,"config_hash":"x","shard":3,"shards":2})");
  CHECK(bad_shard.status().code() == StatusCode::kParseError);
}

TEST_CASE("config change lines round-trip", "[journal][record]") {
  ConfigHashChange c{"old", "new", "2026-11-21T12:00:00.000Z"};
  auto entry = DecodeEntry(EncodeConfigHashChange(c));
  REQUIRE(entry.ok());
  REQUIRE(entry->config_change.has_value());
  CHECK(*entry->config_change == c);
}

}  // namespace seragen::journal

namespace seragen::journal {
namespace {

// A decode that fails says whether the bytes were torn (kDataLoss) or broke
// the schema (kParseError); one that succeeds re-encodes to a line that
// decodes to the same record.
void CheckDecodeTotal(const std::string& line) {
  Result<JournalEntry> e = DecodeEntry(line);
  if (!e.ok()) {
    CHECK((e.status().code() == StatusCode::kDataLoss || e.status().code() == StatusCode::kParseError));
    return;
  }
  if (!e->record) return;
  Result<std::string> again = EncodeRecord(*e->record);
  if (!again.ok()) return;  // e.g. a decoded ref that the writer refuses
  Result<JournalEntry> back = DecodeEntry(*again);
  REQUIRE(back.ok());
  CHECK(back->record == e->record);
}

// Lines of every stage kind with typed extras, base64 text and an error.
std::vector<std::string> RichLines() {
  JournalRecord rollout = FullRecord();
  rollout.status = std::string("bad \xff bytes", 11);
  JournalRecord issue = FullRecord();
  issue.stage = Stage::kIssueDone;
  issue.extra = IssueResult{"the issue text", 2, "pool"};
  JournalRecord verified = FullRecord();
  verified.stage = Stage::kVerified;
  verified.extra = VerificationResult{VerificationScores{"lines", 4, 3, 2, false, 0.5, 0.66, 0.57, true}, 0.5, true};
  std::vector<std::string> lines;
  for (const JournalRecord& r : {rollout, issue, verified}) {
    Result<std::string> line = EncodeRecord(r);
    REQUIRE(line.ok());
    lines.push_back(*line);
  }
  lines.push_back(EncodeConfigHashChange({"a", "b", "2026-11-21T12:00:00.000Z", "config.1.yaml"}));
  return lines;
}

}  // namespace

TEST_CASE("every cut and byte mutation of a journal line decodes or is a typed error, never an exception",
          "[journal][record]") {
  std::mt19937_64 rng(29);  // fixed: the same mutants every run
  for (const std::string& good : RichLines()) {
    INFO(good);
    REQUIRE(DecodeEntry(good).ok());
    for (std::size_t n = 0; n < good.size(); ++n) {
      Result<JournalEntry> cut = DecodeEntry(good.substr(0, n));
      REQUIRE_FALSE(cut.ok());
      CHECK(cut.status().code() == StatusCode::kDataLoss);
    }
    for (int i = 0; i < 1500; ++i) {
      std::string mutant = good;
      for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) {
        mutant[rng() % mutant.size()] = static_cast<char>(rng() % 256);
      }
      CheckDecodeTotal(mutant);
    }
  }
}

TEST_CASE("hostile journal lines: deep nesting, huge numbers and wrong kinds are named", "[journal][record]") {
  const std::string deep = std::string(200, '[') + std::string(200, ']');
  auto nested = DecodeEntry(R"({"type":"task","task_id":"a","stage":"planned","x":)" + deep + "}");
  REQUIRE_FALSE(nested.ok());
  CHECK(nested.status().code() == StatusCode::kDataLoss);
  CHECK_THAT(nested.status().message(), Catch::Contains("nests deeper"));
  // Unknown members are ignored, however they nest within the bound.
  const std::string shallow = std::string(60, '[') + std::string(60, ']');
  CHECK(DecodeEntry(R"({"type":"task","task_id":"a","stage":"planned","x":)" + shallow + "}").ok());
  for (const auto& [line, field] : std::vector<std::pair<std::string, std::string>>{
           {R"({"type":"task","task_id":"a","stage":"planned","attempt":9223372036854775808})", "attempt"},
           {R"({"type":"task","task_id":"a","stage":"planned","attempt":4294967296})", "attempt"},
           {R"({"type":"task","task_id":"a","stage":"planned","tokens":{"prompt":1.5}})", "tokens.prompt"},
           {R"({"type":"task","task_id":"a","stage":"planned","timings_ms":{"q":"1"}})", "timings_ms.q"},
           {R"({"type":"task","task_id":"a","stage":"planned","endpoint_tokens":{"h":3}})", "endpoint_tokens.h"},
           {R"({"type":"task","task_id":"a","stage":"planned","endpoint_tokens":{"h":{"prompt":"1"}}})",
            "endpoint_tokens.h.prompt"},
           {R"({"type":"task","task_id":"a","stage":"planned","error":[]})", "error"},
           {R"({"type":"task","task_id":"a","stage":"issue_done","extra":{"retries":-1}})", "extra.retries"},
           {R"({"type":"task","task_id":"a","stage":"verified","extra":{"scores":3}})", "extra.scores"},
           {R"({"type":"task","task_id":"a","stage":"verified","extra":{"threshold":true}})", "extra.threshold"},
           {R"({"type":"task","task_id":"a","stage":"planned","status_base64":"@@"})", "status_base64"},
       }) {
    INFO(line);
    auto e = DecodeEntry(line);
    REQUIRE_FALSE(e.ok());
    CHECK(e.status().code() == StatusCode::kParseError);
    CHECK_THAT(e.status().message(), Catch::Contains("'" + field + "'"));
  }
  // Text that is not UTF-8 inside a JSON string is damage, not a record.
  CHECK(DecodeEntry(std::string("{\"type\":\"task\",\"task_id\":\"\xff\",\"stage\":\"planned\"}")).status().code() ==
        StatusCode::kDataLoss);
}

TEST_CASE("a record written before endpoints were recorded decodes, its tokens attributed to no endpoint",
          "[journal][record]") {
  // A line as journals held it before "endpoint_tokens" existed.
  auto entry = DecodeEntry(R"({"type":"task","task_id":"t1","stage":"rollout1_done","status":"submitted","attempt":1,)"
                           R"("tokens":{"prompt":1000,"completion":200,"reasoning":0,"calls":3,"cached":400}})");
  REQUIRE(entry.ok());
  REQUIRE(entry->record);
  CHECK(entry->record->endpoint_tokens.empty());
  const EndpointTokens all = AttributedTokens(*entry->record);
  REQUIRE(all.size() == 1);
  CHECK(all.at("") == TokenUsage{1000, 200, 0, 3, 400});
}

TEST_CASE("a record's tokens are attributed to the endpoints that answered them, the rest to none",
          "[journal][record]") {
  JournalRecord r{"t1", Stage::kRollout1Done, "submitted", 1};
  r.tokens = {1000, 200, 0, 4, 100};
  r.endpoint_tokens = {{"http://a/v1", {700, 150, 0, 2, 100}}, {"http://b/v1", {300, 50, 0, 1, 0}}};
  EndpointTokens parts = AttributedTokens(r);
  CHECK(parts.at("http://a/v1") == TokenUsage{700, 150, 0, 2, 100});
  CHECK(parts.at("http://b/v1") == TokenUsage{300, 50, 0, 1, 0});
  CHECK(parts.at("") == TokenUsage{0, 0, 0, 1, 0});  // a call that got no answer
  // A damaged record claiming more for its endpoints than it holds gives them no more than it holds.
  r.endpoint_tokens["http://b/v1"].prompt_tokens = 5'000'000;
  parts = AttributedTokens(r);
  CHECK(parts.at("http://a/v1").prompt_tokens + parts.at("http://b/v1").prompt_tokens == 1000);
  CHECK((parts.count("") == 0 || parts.at("").prompt_tokens == 0));
}

}  // namespace seragen::journal
