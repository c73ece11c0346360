#include "seragen/journal/turn_log.h"

#include <catch2/catch.hpp>

#include <filesystem>

#include "seragen/base/file_util.h"
#include "seragen/journal/run_paths.h"
#include "testing/temp_dir.h"

namespace seragen::journal {
namespace {

TurnLogHeader Header() {
  TurnLogHeader h;
  h.task_id = "3fa2";
  h.rollout = 1;
  h.attempt = 2;
  h.restarts = 1;
  h.discarded_tokens = 5120;
  return h;
}

TurnLogAnswer Answer(int call) {
  // Text fields take any bytes: quotes, newlines and bytes that are not UTF-8.
  return {call, "sha-" + std::to_string(call), 1.5 * call,
          R"({"content":"line \"one\"\nline two","tool_calls":[],"usage":{"prompt_tokens":)" +
              std::to_string(100 * (call + 1)) + "}}"};
}

TurnLogOutcome Outcome(int call) { return {call, "observation", "out\xff\xfe " + std::to_string(call), call % 2 == 1}; }

// header, then answer/outcome for calls 0..2, call 1 without outcome (a rejected turn), call 3 answered only.
std::string Log() {
  std::string text = EncodeTurnLogHeader(Header()) + "\n";
  for (int call = 0; call < 4; ++call) {
    text += *EncodeTurnLogAnswer(Answer(call)) + "\n";
    if (call != 1 && call != 3) text += EncodeTurnLogOutcome(Outcome(call)) + "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("a turn log reads back exactly what was written", "[journal][turn_log]") {
  Result<LoadedTurnLog> log = ParseTurnLog(Log(), "t");
  REQUIRE(log.ok());
  CHECK(log->has_header);
  CHECK(log->header == Header());
  REQUIRE(log->turns.size() == 4);
  for (int call = 0; call < 4; ++call) {
    const TurnLogTurn& t = log->turns[call];
    CHECK(t.answer.call == call);
    CHECK(t.answer.request_sha256 == Answer(call).request_sha256);
    CHECK(t.answer.llm_seconds == Answer(call).llm_seconds);
    CHECK(t.answer.response_json.find("\"prompt_tokens\":" + std::to_string(100 * (call + 1))) != std::string::npos);
    CHECK(t.outcome.has_value() == (call == 0 || call == 2));
    if (t.outcome) CHECK(*t.outcome == Outcome(call));
  }
  CHECK(log->dropped_tail_bytes == 0);
  CHECK(log->valid_bytes == Log().size());
}

TEST_CASE("a turn log cut at any byte loads the complete lines before the cut", "[journal][turn_log]") {
  const std::string full = Log();
  // Line ends: the complete prefix each cut keeps.
  std::vector<std::size_t> ends;
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (full[i] == '\n') ends.push_back(i + 1);
  }
  for (std::size_t cut = 0; cut <= full.size(); ++cut) {
    INFO("cut at " << cut);
    Result<LoadedTurnLog> log = ParseTurnLog(full.substr(0, cut), "t");
    REQUIRE(log.ok());
    std::size_t lines = 0;
    while (lines < ends.size() && ends[lines] <= cut) ++lines;
    CHECK(log->valid_bytes == (lines == 0 ? 0 : ends[lines - 1]));
    CHECK(log->dropped_tail_bytes == cut - log->valid_bytes);
    CHECK(log->has_header == (lines >= 1));
    // Lines: header, a0, o0, a1, a2, o2, a3.
    static const std::size_t kTurnsAfter[] = {0, 0, 1, 1, 2, 3, 3, 4};
    CHECK(log->turns.size() == kTurnsAfter[lines]);
  }
}

TEST_CASE("damage before the last line, or lines out of order, make a turn log unreadable", "[journal][turn_log]") {
  const std::string header = EncodeTurnLogHeader(Header()) + "\n";
  const std::string a0 = *EncodeTurnLogAnswer(Answer(0)) + "\n";
  const std::string a1 = *EncodeTurnLogAnswer(Answer(1)) + "\n";
  const std::string o0 = EncodeTurnLogOutcome(Outcome(0)) + "\n";
  struct Case {
    const char* what;
    std::string text;
    StatusCode code;
  };
  std::vector<Case> cases = {
      {"a damaged middle line", header + "{\"type\":\"ans\n" + a0, StatusCode::kDataLoss},
      {"zeros in the middle", header + std::string(20, '\0') + "\n" + a0, StatusCode::kDataLoss},
      {"a skipped call", header + a1, StatusCode::kDataLoss},
      {"a call answered twice", header + a0 + a0, StatusCode::kDataLoss},
      {"an outcome without its answer", header + o0, StatusCode::kDataLoss},
      {"an outcome twice", header + a0 + o0 + o0, StatusCode::kDataLoss},
      {"an unknown line type", header + "{\"type\":\"thought\"}\n", StatusCode::kParseError},
      {"an answer without response", header + "{\"type\":\"answer\",\"call\":0,\"request_sha256\":\"x\"}\n",
       StatusCode::kParseError},
      {"another file", "{\"format\":\"seragen-journal\",\"version\":1}\n", StatusCode::kParseError},
      {"a newer version", "{\"format\":\"seragen-turns\",\"version\":2}\n", StatusCode::kFailedPrecondition},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    Result<LoadedTurnLog> log = ParseTurnLog(c.text, "turns/x.r1.a1.jsonl");
    REQUIRE_FALSE(log.ok());
    CHECK(log.status().code() == c.code);
    CHECK(log.status().message().find("turns/x.r1.a1.jsonl line") != std::string::npos);
  }
  // A torn last line is not damage.
  CHECK(ParseTurnLog(header + a0 + "{\"type\":\"outc", "t").ok());
  CHECK(ParseTurnLog(header + a0 + std::string(7, '\0'), "t").ok());
  // An answer whose response is not a JSON object is refused when written.
  CHECK(EncodeTurnLogAnswer({0, "x", 0, "[1,2]"}).status().code() == StatusCode::kInvalidArgument);
  CHECK(EncodeTurnLogAnswer({0, "x", 0, "{\"a\":"}).status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("the writer creates, appends durably, continues after a torn line and removes", "[journal][turn_log]") {
  testing::TempDir dir;
  const std::string path = dir.Sub("shard-0/" + TurnLogRef("3fa2", 1, 2));
  {
    auto w = TurnLogWriter::Create(path, Header());
    REQUIRE(w.ok());
    REQUIRE((*w)->AppendAnswer(Answer(0)).ok());
    REQUIRE((*w)->AppendOutcome(Outcome(0)).ok());
    REQUIRE((*w)->AppendAnswer(Answer(1)).ok());
  }
  // A kill in the middle of the next append.
  {
    Result<std::string> bytes = ReadFile(path);
    REQUIRE(bytes.ok());
    REQUIRE(WriteFileAtomic(path, *bytes + "{\"type\":\"outcome\",\"ca").ok());
  }
  Result<LoadedTurnLog> loaded = LoadTurnLog(path);
  REQUIRE(loaded.ok());
  CHECK(loaded->turns.size() == 2);
  CHECK(loaded->dropped_tail_bytes > 0);
  {
    auto w = TurnLogWriter::Continue(path, *loaded);
    REQUIRE(w.ok());
    REQUIRE((*w)->AppendOutcome(Outcome(1)).ok());
    REQUIRE((*w)->AppendAnswer(Answer(2)).ok());
  }
  Result<LoadedTurnLog> again = LoadTurnLog(path);
  REQUIRE(again.ok());
  CHECK(again->dropped_tail_bytes == 0);
  REQUIRE(again->turns.size() == 3);
  CHECK(*again->turns[1].outcome == Outcome(1));
  CHECK(again->header == Header());
  // Create replaces an old log.
  {
    TurnLogHeader fresh = Header();
    fresh.restarts = 2;
    auto w = TurnLogWriter::Create(path, fresh);
    REQUIRE(w.ok());
  }
  Result<LoadedTurnLog> replaced = LoadTurnLog(path);
  REQUIRE(replaced.ok());
  CHECK(replaced->turns.empty());
  CHECK(replaced->header.restarts == 2);
  REQUIRE(RemoveTurnLog(path).ok());
  CHECK(LoadTurnLog(path).status().code() == StatusCode::kNotFound);
  CHECK(RemoveTurnLog(path).ok());  // gone already: fine
}

TEST_CASE("turn log names round-trip and nothing else parses as one", "[journal][turn_log][run_paths]") {
  CHECK(TurnLogRef("3fa2", 1, 2) == "turns/3fa2.r1.a2.jsonl");
  CHECK(ParseTurnLogRef("turns/3fa2.r1.a2.jsonl") == TurnLogName{"3fa2", 1, 2});
  CHECK(ParseTurnLogRef("turns/a.r1.b.r2.a10.jsonl") == TurnLogName{"a.r1.b", 2, 10});
  for (const char* bad : {"turns/3fa2.r1.jsonl", "turns/3fa2.r3.a1.jsonl", "turns/3fa2.r1.a0.jsonl",
                          "turns/3fa2.r1.a01.jsonl", "turns/.r1.a1.jsonl", "trajectories/3fa2.r1.a1.jsonl",
                          "turns/3fa2.r1.a1.json", "turns/x/3fa2.r1.a1.jsonl", "turns/3fa2.r1.a1.jsonl.tmp.1"}) {
    INFO(bad);
    CHECK_FALSE(ParseTurnLogRef(bad).has_value());
  }
}

TEST_CASE("turn logs no resume will replay are removed at start", "[journal][turn_log]") {
  testing::TempDir dir;
  const std::string shard = dir.Sub("shard-0");
  auto make = [&](const std::string& ref) { dir.Write("shard-0/" + ref, EncodeTurnLogHeader(Header()) + "\n"); };
  // finished: a verified task; r1done: rollout 1 done (its log left by a kill before removal);
  // judged: attempt 1 rejected by the judge, attempt 2 running; running: rollout 2 in flight; fresh: unknown task.
  for (const char* ref :
       {"turns/finished.r2.a1.jsonl", "turns/r1done.r1.a1.jsonl", "turns/judged.r1.a1.jsonl",
        "turns/judged.r1.a2.jsonl", "turns/running.r2.a1.jsonl", "turns/fresh.r1.a1.jsonl", "turns/notes.txt"}) {
    make(ref);
  }
  std::vector<JournalRecord> records = {
      {"finished", Stage::kRollout1Done, "submitted", 1},
      {"finished", Stage::kVerified, "accepted", 1},
      {"r1done", Stage::kRollout1Done, "submitted", 1},
      {"judged", Stage::kRollout1Done, "submitted", 1},
      {"judged", Stage::kJudgeDone, "no", 1},
      {"running", Stage::kRollout1Done, "submitted", 1},
      {"running", Stage::kIssueDone, "written", 1},
  };
  Result<std::size_t> removed = RemoveFinishedTurnLogs(shard, ResumeState::Fold(records));
  REQUIRE(removed.ok());
  CHECK(*removed == 3);
  namespace fs = std::filesystem;
  CHECK_FALSE(fs::exists(shard + "/turns/finished.r2.a1.jsonl"));
  CHECK_FALSE(fs::exists(shard + "/turns/r1done.r1.a1.jsonl"));
  CHECK_FALSE(fs::exists(shard + "/turns/judged.r1.a1.jsonl"));
  CHECK(fs::exists(shard + "/turns/judged.r1.a2.jsonl"));
  CHECK(fs::exists(shard + "/turns/running.r2.a1.jsonl"));
  CHECK(fs::exists(shard + "/turns/fresh.r1.a1.jsonl"));
  CHECK(fs::exists(shard + "/turns/notes.txt"));
  CHECK(RemoveFinishedTurnLogs(dir.Sub("shard-9"), ResumeState()).ok());  // no directory: nothing to do
}

}  // namespace seragen::journal
