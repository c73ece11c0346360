// Resuming a task inside a rollout: the task runner journals each rollout's
// turns, a later run replays them instead of asking the model again, and a
// turn log that cannot be replayed restarts the rollout and is counted. A
// "kill" is a rollout call that fails (the rollout ends unfinished, as after
// SIGKILL; the turn log is what a killed process leaves).
#include "seragen/pipeline/turn_log_sink.h"

#include <catch2/catch.hpp>

#include "pipeline/pipeline_fakes.h"
#include "pipeline/runner_world.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/journal/run_paths.h"
#include "seragen/pipeline/task_runner.h"

namespace seragen::pipeline {
namespace {

using testing::MemoryStore;
using testing::ScriptedEnvironments;

// Rollouts: bash, bash, submit (by the number of messages); text stages as
// ScriptedModel. Every answer costs 100 prompt + 10 completion tokens.
// Rollout calls numbered `fail_at` (0-based, over the fixture's life) fail.
struct Model {
  std::vector<llm::ChatRequest> rollout_requests;
  std::set<int> fail_at;
  std::deque<std::string> judge_replies;

  void Install(llm::FakeChatClient& chat) {
    chat.SetHandler([this](const llm::ChatRequest& req) -> Result<llm::ChatResponse> {
      llm::ChatResponse r;
      if (!req.tools.empty()) {
        int n = static_cast<int>(rollout_requests.size());
        rollout_requests.push_back(req);
        if (fail_at.count(n)) return llm::MakeFailure(llm::FailureClass::kTransientServer, "endpoint gone");
        r = req.messages.size() >= 6 ? llm::MakeToolCallResponse("submit", "{}", "s")
                                     : llm::MakeToolCallResponse("bash", R"({"command":"ls"})", "b");
      } else if (req.messages.front().content.find("</answer>") != std::string::npos) {
        std::string reply = "<answer>yes</answer>";
        if (!judge_replies.empty()) {
          reply = judge_replies.front();
          judge_replies.pop_front();
        }
        r = llm::MakeTextResponse(reply);
      } else {
        r = llm::MakeTextResponse("<issue>Calling `reserve` with 0 items crashes.</issue>");
      }
      r.usage.present = true;
      r.usage.prompt_tokens = 100;
      r.usage.completion_tokens = 10;
      return r;
    });
  }
  // Requests of rollout `number` (by the rollout prompt's wording) that started a conversation.
  int FirstCalls() const {
    int n = 0;
    for (const auto& r : rollout_requests) n += r.messages.size() == 2 ? 1 : 0;
    return n;
  }
};

struct Fixture : testing::RunnerWorld {
  Model model;

  Fixture() { model.Install(chat); }

  static callgraph::PlannedTask MakeTask() { return RunnerWorld::MakeTask("t1"); }

  // One run of the task, resumed from what the store holds.
  TaskOutcome Run() {
    auto state = journal::ResumeState::Fold(store.records);
    return RunnerWorld::Run(MakeTask(), state.Find("t1"));
  }

  const journal::JournalRecord* Last(journal::Stage stage) const {
    for (auto it = store.records.rbegin(); it != store.records.rend(); ++it) {
      if (it->stage == stage) return &*it;
    }
    return nullptr;
  }
  bool HasFile(const std::string& path) const { return store.files.count(path) > 0; }
};

}  // namespace

TEST_CASE("a rollout cut short resumes from its turn log without asking the model again", "[pipeline][replay]") {
  Fixture f;
  f.model.fail_at = {2};  // rollout 1: bash, bash answered; the third call fails
  CHECK(f.Run().kind == TaskOutcome::Kind::kInfraFailure);
  const std::string log = journal::TurnLogRef("t1", 1, 1);
  REQUIRE(f.HasFile(log));
  // The failed record leaves the journaled answers' tokens to the rollout's done record.
  CHECK(f.Last(journal::Stage::kFailed)->tokens.prompt_tokens == 0);
  auto loaded = journal::ParseTurnLog(f.store.files[log], log);
  REQUIRE(loaded.ok());
  CHECK(loaded->turns.size() == 2);

  const std::size_t before = f.model.rollout_requests.size();
  CHECK(f.Run().kind == TaskOutcome::Kind::kVerified);
  // Resumed rollout 1 sent only its third request; rollout 2 started afresh.
  REQUIRE(f.model.rollout_requests.size() == before + 4);
  CHECK(f.model.rollout_requests[before].messages.size() == 6);
  CHECK(f.model.rollout_requests[before + 1].messages.size() == 2);
  CHECK(f.model.FirstCalls() == 2);
  const journal::JournalRecord* r1 = f.Last(journal::Stage::kRollout1Done);
  REQUIRE(r1 != nullptr);
  CHECK(r1->rollout()->replayed_calls == 2);
  CHECK(r1->rollout()->restarts == 0);
  CHECK(r1->tokens.calls == 3);  // the replayed calls are counted once, here
  CHECK(r1->tokens.prompt_tokens == 300);
  auto t = agent::TrajectoryFromJson(f.store.files["trajectories/t1.r1.json"]);
  REQUIRE(t.ok());
  CHECK(t->totals.replayed_calls == 2);
  CHECK(t->turns[0].replayed);
  CHECK_FALSE(t->turns[2].replayed);
  // Logs go once the done records are durable.
  CHECK_FALSE(f.HasFile(log));
  CHECK_FALSE(f.HasFile(journal::TurnLogRef("t1", 2, 1)));
}

TEST_CASE("a damaged turn log restarts the rollout and the restart is counted", "[pipeline][replay]") {
  Fixture f;
  f.model.fail_at = {2};
  f.Run();
  const std::string log = journal::TurnLogRef("t1", 1, 1);
  std::string& bytes = f.store.files[log];
  bytes.insert(bytes.find('\n') + 1, "{\"type\":\"ans\n");  // damage after the header
  CHECK(f.Run().kind == TaskOutcome::Kind::kVerified);
  CHECK(f.model.FirstCalls() == 3);  // rollout 1 twice, rollout 2 once
  const journal::JournalRecord* r1 = f.Last(journal::Stage::kRollout1Done);
  CHECK(r1->rollout()->replayed_calls == 0);
  CHECK(r1->rollout()->restarts == 1);
  CHECK(r1->rollout()->discarded_tokens == 0);  // a damaged log's answers cannot be counted
  CHECK(r1->tokens.calls == 3);
}

TEST_CASE("a replay that no longer matches starts the rollout again and counts what it discarded",
          "[pipeline][replay]") {
  Fixture f;
  f.model.fail_at = {2};
  f.Run();
  // The run continues with another setting (e.g. --allow-config-change): the recorded answers answered other requests.
  f.ctx.settings.request_template.max_tokens = 77;
  CHECK(f.Run().kind == TaskOutcome::Kind::kVerified);
  CHECK(f.model.FirstCalls() == 3);
  const journal::JournalRecord* r1 = f.Last(journal::Stage::kRollout1Done);
  CHECK(r1->rollout()->replayed_calls == 0);
  CHECK(r1->rollout()->restarts == 1);
  CHECK(r1->rollout()->discarded_tokens == 220);  // the two answers of the discarded log
  CHECK(r1->tokens.calls == 3);
}

TEST_CASE("a judge-rejected attempt's turns are never replayed into the next attempt", "[pipeline][replay]") {
  Fixture f;
  f.model.judge_replies = {"<answer>no</answer>"};
  f.model.fail_at = {4};  // attempt 1: calls 0-2; attempt 2: call 3 answered, call 4 fails
  CHECK(f.Run().kind == TaskOutcome::Kind::kInfraFailure);
  CHECK_FALSE(f.HasFile(journal::TurnLogRef("t1", 1, 1)));
  REQUIRE(f.HasFile(journal::TurnLogRef("t1", 1, 2)));
  CHECK(f.Run().kind == TaskOutcome::Kind::kVerified);
  const journal::JournalRecord* r1 = f.Last(journal::Stage::kRollout1Done);
  CHECK(r1->rollout()->replayed_calls == 1);
  auto t = agent::TrajectoryFromJson(f.store.files["trajectories/t1.r1.json"]);
  REQUIRE(t.ok());
  // Attempt 2 has its own category prompt and seed: the replayed turn answered attempt 2's request.
  CHECK(t->turns[0].replayed);
  CHECK(f.model.rollout_requests[3].messages[1].content == t->history[1].content);
  CHECK(f.model.rollout_requests[0].messages[1].content != t->history[1].content);
}

TEST_CASE("a turn log that cannot be written leaves the rollout unjournaled but running", "[pipeline][replay]") {
  Fixture f;
  f.store.fail_turn_logs = true;
  CHECK(f.Run().kind == TaskOutcome::Kind::kVerified);
  CHECK(f.store.turn_answers_appended == 0);
}

TEST_CASE("recorded turns survive the trip through the log format", "[pipeline][replay]") {
  MemoryStore store;
  journal::TurnLogHeader h{"t1", 1, 1, 0, 0};
  REQUIRE(store.StartTurnLog("turns/t1.r1.a1.jsonl", h, nullptr).ok());
  TurnLogSink sink(&store, "turns/t1.r1.a1.jsonl", {});
  agent::RecordedTurn turn;
  turn.call = 0;
  turn.request_sha256 = "abc";
  turn.llm_seconds = 2.5;
  turn.response = llm::MakeToolCallResponse("bash", R"({"command":"echo \"hi\""})", "c0");
  turn.response.usage.prompt_tokens = 120;
  turn.response.usage.cached_prompt_tokens = 64;
  turn.response.reasoning = "think";
  turn.response.endpoint = "http://gpu0:8000/v1";
  REQUIRE(sink.Answered(turn).ok());
  REQUIRE(sink.ToolDone(0, {agent::ToolOutcome::Kind::kObservation, "hi\n\xff", true}).ok());
  CHECK(sink.journaled().total.prompt_tokens == 120);
  CHECK(sink.journaled().total.cached_prompt_tokens == 64);
  CHECK(sink.journaled().by_endpoint.at("http://gpu0:8000/v1").prompt_tokens == 120);
  auto loaded = store.LoadTurnLog("turns/t1.r1.a1.jsonl");
  REQUIRE(loaded.ok());
  auto turns = RecordedTurnsFrom(*loaded);
  REQUIRE(turns.ok());
  REQUIRE(turns->size() == 1);
  const agent::RecordedTurn& back = turns->front();
  CHECK(back.request_sha256 == "abc");
  CHECK(back.llm_seconds == 2.5);
  CHECK(back.response.tool_calls.front().arguments_raw == turn.response.tool_calls.front().arguments_raw);
  CHECK(back.response.tool_calls.front().arguments_valid);
  CHECK(back.response.reasoning == "think");
  CHECK(back.response.usage.cached_prompt_tokens == 64);
  REQUIRE(back.outcome.has_value());
  CHECK(back.outcome->text == "hi\n\xff");
  CHECK(back.outcome->timed_out);
  CHECK(TokensOf(*turns).total.prompt_tokens == 120);
  CHECK(TokensOf(*turns).by_endpoint.at("http://gpu0:8000/v1").prompt_tokens == 120);  // the endpoint is kept
  // An outcome kind from a newer writer is not replayable.
  loaded->turns.front().outcome->kind = "teleported";
  CHECK(RecordedTurnsFrom(*loaded).status().code() == StatusCode::kParseError);
}

}  // namespace seragen::pipeline

namespace seragen::pipeline {

TEST_CASE("which turn logs are replayed, discarded or started afresh", "[pipeline][replay]") {
  MemoryStore store;
  const std::string ref = journal::TurnLogRef("t1", 1, 2);
  journal::TurnLogHeader want{"t1", 1, 2, 0, 0};
  SECTION("none: a new log, nothing to replay, no restart") {
    ResumedRollout r = OpenTurnLog(&store, want, true);
    CHECK(r.ref == ref);
    CHECK(r.replay.empty());
    CHECK(r.restart_reason.empty());
    REQUIRE(r.sink != nullptr);
    CHECK(store.files[ref] == journal::EncodeTurnLogHeader(want) + "\n");
  }
  SECTION("only a torn header (killed while creating it): a new log, not a restart") {
    store.files[ref] = journal::EncodeTurnLogHeader(want).substr(0, 20);
    ResumedRollout r = OpenTurnLog(&store, want, true);
    CHECK(r.restart_reason.empty());
    CHECK(r.header.restarts == 0);
    CHECK(store.files[ref] == journal::EncodeTurnLogHeader(want) + "\n");
  }
  SECTION("a log whose header names another rollout is discarded and counted, carrying its counts") {
    store.files[ref] = journal::EncodeTurnLogHeader({"t9", 1, 2, 2, 300}) + "\n";
    ResumedRollout r = OpenTurnLog(&store, want, true);
    CHECK(r.restart_reason == "its header names another rollout");
    CHECK(r.header.restarts == 3);
    CHECK(r.header.discarded_tokens == 300);
    CHECK(r.replay.empty());
    CHECK(store.files[ref] == journal::EncodeTurnLogHeader(r.header) + "\n");
  }
  SECTION("after an in-process restart the log is not read at all") {
    store.files[ref] = "damage\n" + journal::EncodeTurnLogHeader(want) + "\n";
    ResumedRollout r = OpenTurnLog(&store, want, false);
    CHECK(r.restart_reason.empty());
    CHECK(store.files[ref] == journal::EncodeTurnLogHeader(want) + "\n");
  }
}

}  // namespace seragen::pipeline
