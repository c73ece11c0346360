// Resuming a rollout from its journaled turns, with a scripted model, an
// in-memory working tree and a recording sink: no processes, no files.
#include "seragen/agent/turn_replay.h"

#include <catch2/catch.hpp>

#include <functional>
#include <map>

#include "agent/agent_test_support.h"
#include "seragen/agent/rollout.h"
#include "seragen/agent/trajectory_json.h"
#include "testing/fake_chat_client.h"

namespace seragen::agent {
namespace {

using llm::MakeTextResponse;
using llm::MakeToolCallResponse;

// A working tree in memory. "editor" writes a file ({"path","text"}), "bash"
// lists the tree, plus a counter that changes on every run when `drift`
// is set (a command whose output is not deterministic).
class TreeTools final : public ToolExecutor, public PatchSource {
 public:
  std::vector<llm::ToolSpec> Specs() const override { return TestToolSpecs(); }
  ToolOutcome Execute(const llm::ToolCall& call) override {
    executed.push_back(call.name);
    ToolOutcome out;
    if (call.name == "submit") {
      out.submitted = true;
      out.text = "submitted";
    } else if (call.name == "editor") {
      // arguments_json is compact: {"path":"P","text":"T"}
      const std::string& a = call.arguments_json;
      std::size_t p = a.find("\"path\":\"") + 8;
      std::size_t pe = a.find('"', p);
      std::size_t t = a.find("\"text\":\"") + 8;
      std::size_t te = a.find('"', t);
      files[a.substr(p, pe - p)] = a.substr(t, te - t);
      out.text = "wrote " + a.substr(p, pe - p);
    } else if (call.name == "bash" && broken_bash) {
      out.kind = ToolOutcome::Kind::kHarnessError;
      out.text = "sandbox failed";
    } else if (call.name == "bash") {
      for (const auto& [path, text] : files) out.text += path + "=" + text + "\n";
      if (drift) out.text += "run " + std::to_string(++*drift) + "\n";
    } else if (call.name == "broken") {
      out.kind = ToolOutcome::Kind::kHarnessError;
      out.text = "sandbox failed";
    } else {
      out.kind = ToolOutcome::Kind::kInvalidCall;
      out.text = "no tool " + call.name;
    }
    return out;
  }
  Result<std::string> CurrentPatch() override {
    std::string patch;
    for (const auto& [path, text] : files) patch += "+" + path + ":" + text + "\n";
    return patch;
  }
  std::map<std::string, std::string> files;
  std::vector<std::string> executed;
  int* drift = nullptr;
  bool broken_bash = false;
};

// Keeps what a rollout journals, in order, as a durable log would; can be
// told to fail from some append on.
class RecordingSink final : public TurnSink {
 public:
  Status Answered(const RecordedTurn& turn) override {
    events.push_back("answer " + std::to_string(turn.call));
    if (fail_from >= 0 && appends++ >= fail_from) return IoError("disk full");
    turns.push_back(turn);
    return Status::Ok();
  }
  Status ToolDone(int call, const RecordedOutcome& outcome) override {
    events.push_back("outcome " + std::to_string(call));
    if (fail_from >= 0 && appends++ >= fail_from) return IoError("disk full");
    REQUIRE(!turns.empty());
    REQUIRE(turns.back().call == call);
    turns.back().outcome = outcome;
    return Status::Ok();
  }
  std::vector<RecordedTurn> turns;
  std::vector<std::string> events;
  int fail_from = -1;
  int appends = 0;
};

llm::ChatResponse Priced(llm::ChatResponse r, std::int64_t prompt) {
  r.usage.present = true;
  r.usage.prompt_tokens = prompt;
  r.usage.completion_tokens = 7;
  r.usage.total_tokens = prompt + 7;
  return r;
}

// The model of these tests: edits two files, lists the tree, makes one
// malformed turn, then submits. Answers are keyed by call number.
std::vector<llm::ChatResponse> Script() {
  return {Priced(MakeToolCallResponse("editor", R"({"path":"a.py","text":"x = 1"})", "c0"), 100),
          Priced(MakeToolCallResponse("bash", R"({"command":"ls"})", "c1"), 200),
          Priced(MakeTextResponse("I will now fix it."), 300),  // no tool call: rejected
          Priced(MakeToolCallResponse("editor", R"({"path":"b.py","text":"y = 2"})", "c3"), 400),
          Priced(MakeToolCallResponse("bash", R"({"command":"ls"})", "c4"), 500),
          Priced(MakeToolCallResponse("submit", "{}", "c5"), 600)};
}

struct Run {
  Trajectory trajectory;
  std::vector<llm::ChatRequest> requests;  // what reached the model
  std::map<std::string, std::string> tree;
  std::vector<std::string> executed;
};

// Runs the rollout on a fresh tree; the model answers call k with Script()[k].
Run RunRollout(std::vector<RecordedTurn> replay, TurnSink* sink, int* drift = nullptr,
               std::string instance = "INSTANCE", std::function<void(TreeTools&)> prepare = nullptr) {
  llm::FakeChatClient chat;
  std::vector<llm::ChatResponse> script = Script();
  int first_live = static_cast<int>(replay.size());
  for (int k = first_live; k < static_cast<int>(script.size()); ++k) chat.PushResponse(script[k]);
  TreeTools tools;
  tools.drift = drift;
  if (prepare) prepare(tools);
  QueueExecutor loop, workers;
  FakeClock clock;
  AgentMessages messages = TestMessages();
  RolloutSpec spec;
  spec.task_id = "t";
  spec.system_prompt = "SYSTEM";
  spec.instance_prompt = std::move(instance);
  spec.request_template.model = "m";
  spec.replay = std::move(replay);
  RolloutDeps deps{&chat, &tools, &tools, &loop, &workers, &clock, &messages, sink};
  auto rollout = Rollout::Create(spec, deps);
  std::optional<Trajectory> result;
  loop.Post([&] { rollout->Start([&](Trajectory t) { result = std::move(t); }); });
  for (int i = 0; i < 100000 && !result; ++i) {
    if (!loop.RunOne() && !workers.RunOne()) break;
  }
  REQUIRE(result.has_value());
  return {std::move(*result), chat.requests(), tools.files, tools.executed};
}

// The turns a kill after `answers` journaled answers leaves (the last one's
// outcome only when `with_outcome`).
std::vector<RecordedTurn> Cut(const std::vector<RecordedTurn>& all, std::size_t answers, bool with_outcome) {
  std::vector<RecordedTurn> out(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(answers));
  if (!with_outcome && !out.empty()) out.back().outcome.reset();
  return out;
}

}  // namespace

TEST_CASE("a rollout journals each answer before its tool call runs, then the outcome", "[agent][replay]") {
  RecordingSink sink;
  Run run = RunRollout({}, &sink);
  CHECK(run.trajectory.exit_status == ExitStatus::kSubmitted);
  REQUIRE(sink.turns.size() == 6);
  CHECK(sink.events == std::vector<std::string>{"answer 0", "outcome 0", "answer 1", "outcome 1", "answer 2",
                                                "answer 3", "outcome 3", "answer 4", "outcome 4", "answer 5",
                                                "outcome 5"});
  CHECK_FALSE(sink.turns[2].outcome.has_value());  // rejected turn: no tool call ran
  CHECK(sink.turns[0].outcome->text == "wrote a.py");
  // Each answer carries the digest of the request it answered.
  for (std::size_t k = 0; k < sink.turns.size(); ++k) {
    CHECK(sink.turns[k].call == static_cast<int>(k));
    CHECK(sink.turns[k].request_sha256 == RequestDigest(run.requests[k]));
  }
}

TEST_CASE("file edits replay to the same tree and no recorded call reaches the model again", "[agent][replay]") {
  RecordingSink first;
  Run whole = RunRollout({}, &first);
  REQUIRE(first.turns.size() == 6);
  // A kill after every possible number of journaled answers, with and without the last outcome.
  for (std::size_t cut = 1; cut <= first.turns.size(); ++cut) {
    for (bool with_outcome : {true, false}) {
      INFO("answers journaled before the kill: " << cut << (with_outcome ? " (with outcome)" : ""));
      RecordingSink resumed_log;
      resumed_log.turns = Cut(first.turns, cut, with_outcome);
      Run resumed = RunRollout(Cut(first.turns, cut, with_outcome), &resumed_log);
      CHECK(resumed.trajectory.exit_status == ExitStatus::kSubmitted);
      CHECK(resumed.tree == whole.tree);
      CHECK(resumed.trajectory.patch == whole.trajectory.patch);
      // Only the calls after the cut were sent, and they are the requests of the uninterrupted run.
      REQUIRE(resumed.requests.size() == whole.requests.size() - cut);
      for (std::size_t k = 0; k < resumed.requests.size(); ++k) {
        CHECK(RequestDigest(resumed.requests[k]) == RequestDigest(whole.requests[cut + k]));
      }
      CHECK(resumed.trajectory.totals.model_calls == whole.trajectory.totals.model_calls);
      CHECK(resumed.trajectory.totals.replayed_calls == static_cast<int>(cut));
      CHECK(resumed.trajectory.totals.prompt_tokens == whole.trajectory.totals.prompt_tokens);
      CHECK(resumed.trajectory.totals.completion_tokens == whole.trajectory.totals.completion_tokens);
      CHECK(resumed.trajectory.totals.format_errors == 1);
      CHECK(resumed.trajectory.totals.steps == whole.trajectory.totals.steps);
      REQUIRE(resumed.trajectory.history.size() == whole.trajectory.history.size());
      for (std::size_t k = 0; k < whole.trajectory.history.size(); ++k) {
        CHECK(resumed.trajectory.history[k].content == whole.trajectory.history[k].content);
      }
      for (std::size_t k = 0; k < resumed.trajectory.turns.size(); ++k) {
        CHECK(resumed.trajectory.turns[k].replayed == (k < cut));
      }
      // The resumed log ends up whole: replayed answers are not appended again.
      REQUIRE(resumed_log.turns.size() == first.turns.size());
      for (std::size_t k = 0; k < first.turns.size(); ++k) {
        CHECK(resumed_log.turns[k].request_sha256 == first.turns[k].request_sha256);
        CHECK(resumed_log.turns[k].outcome == first.turns[k].outcome);
      }
      for (const auto& e : resumed_log.events) {
        if (e.rfind("answer ", 0) == 0) CHECK(std::stoi(e.substr(7)) >= static_cast<int>(cut));
      }
    }
  }
}

TEST_CASE("a bash command whose output changed is run again and the difference recorded", "[agent][replay]") {
  int drift = 0;
  RecordingSink first;
  Run whole = RunRollout({}, &first, &drift);
  REQUIRE(first.turns[1].outcome->text.find("run 1") != std::string::npos);
  // Resume after call 3 answered (both bash outputs differ on the second run).
  Run resumed = RunRollout(Cut(first.turns, 5, true), nullptr, &drift);
  CHECK(resumed.trajectory.exit_status == ExitStatus::kSubmitted);
  const TurnRecord& t1 = resumed.trajectory.turns[1];
  CHECK(t1.replayed);
  CHECK(t1.replay_observation_differs);
  CHECK(t1.replay_observation.find("run 3") != std::string::npos);
  // The model keeps seeing what it saw: the history holds the recorded output.
  CHECK(t1.observation == first.turns[1].outcome->text);
  CHECK(resumed.trajectory.history[5].content == first.turns[1].outcome->text);
  CHECK_FALSE(resumed.trajectory.turns[0].replay_observation_differs);  // the edit is deterministic
  // The last request (call 5) is the uninterrupted run's.
  REQUIRE(resumed.requests.size() == 1);
  CHECK(RequestDigest(resumed.requests[0]) == RequestDigest(whole.requests[5]));
  // Stored in the trajectory file and read back.
  Result<Trajectory> back = TrajectoryFromJson(TrajectoryToJson(resumed.trajectory));
  REQUIRE(back.ok());
  CHECK(back->turns[1].replayed);
  CHECK(back->turns[1].replay_observation_differs);
  CHECK(back->turns[1].replay_observation == t1.replay_observation);
  CHECK(back->totals.replayed_calls == 5);
}

TEST_CASE("trajectory files without replay fields still load", "[agent][replay]") {
  Run run = RunRollout({}, nullptr);
  std::string text = TrajectoryToJson(run.trajectory);
  auto erase = [&](const std::string& what) {
    std::size_t at = text.find(what);
    REQUIRE(at != std::string::npos);
    text.erase(at, what.size());
  };
  erase("\"replayed_calls\":0,");
  Result<Trajectory> back = TrajectoryFromJson(text);
  REQUIRE(back.ok());
  CHECK(back->totals.replayed_calls == 0);
  CHECK_FALSE(back->turns[0].replayed);
}

TEST_CASE("a replay whose request is not the recorded one stops with exit_replay_diverged", "[agent][replay]") {
  RecordingSink first;
  RunRollout({}, &first);
  // Another instance prompt (e.g. a different issue): the first request differs.
  Run resumed = RunRollout(Cut(first.turns, 3, true), nullptr, nullptr, "ANOTHER INSTANCE");
  CHECK(resumed.trajectory.exit_status == ExitStatus::kReplayDiverged);
  CHECK(IsInfrastructureExit(ExitStatus::kReplayDiverged));
  CHECK(resumed.requests.empty());  // nothing was sent to the model
  CHECK(resumed.executed.empty());
}

TEST_CASE("a replayed tool call that now ends another way stops the replay", "[agent][replay]") {
  RecordingSink first;
  RunRollout({}, &first);
  std::vector<RecordedTurn> turns = Cut(first.turns, 2, true);
  turns[0].outcome->kind = ToolOutcome::Kind::kInvalidCall;  // recorded as invalid; the editor now accepts it
  Run resumed = RunRollout(turns, nullptr);
  CHECK(resumed.trajectory.exit_status == ExitStatus::kReplayDiverged);
  CHECK(resumed.trajectory.exit_detail.find("recorded as invalid_call") != std::string::npos);
  CHECK(resumed.requests.empty());
}

TEST_CASE("a call the harness failed is run again on resume, not compared", "[agent][replay]") {
  RecordingSink first;
  Run broken = RunRollout({}, &first, nullptr, "INSTANCE", [](TreeTools& t) { t.broken_bash = true; });
  CHECK(broken.trajectory.exit_status == ExitStatus::kToolError);
  REQUIRE(first.turns.size() == 2);
  CHECK_FALSE(first.turns[1].outcome.has_value());  // the model never saw the failure
  RecordingSink resumed_log;
  resumed_log.turns = first.turns;
  Run resumed = RunRollout(first.turns, &resumed_log);
  CHECK(resumed.trajectory.exit_status == ExitStatus::kSubmitted);
  CHECK(resumed.requests.size() == 4);
  CHECK(resumed_log.turns[1].outcome.has_value());
}

TEST_CASE("a sink failure stops journaling, the rollout goes on", "[agent][replay]") {
  RecordingSink sink;
  sink.fail_from = 3;  // answer 0, outcome 0, answer 1 durable; outcome 1 fails
  Run run = RunRollout({}, &sink);
  CHECK(run.trajectory.exit_status == ExitStatus::kSubmitted);
  CHECK(run.requests.size() == 6);
  REQUIRE(sink.turns.size() == 2);
  CHECK_FALSE(sink.turns[1].outcome.has_value());
  CHECK(sink.events.size() == 4);  // nothing after the failure: the log stays a prefix
}

TEST_CASE("request digests cover every field the model sees", "[agent][replay]") {
  llm::ChatRequest base;
  base.model = "m";
  base.messages = {{llm::Role::kSystem, "S", {}, {}, {}, {}}, {llm::Role::kUser, "U", {}, {}, {}, {}}};
  base.tools = {{"bash", "run", "{}"}};
  const std::string d = RequestDigest(base);
  CHECK(RequestDigest(base) == d);
  std::vector<std::function<void(llm::ChatRequest&)>> changes = {
      [](auto& r) { r.model = "n"; },
      [](auto& r) { r.messages[1].content = "V"; },
      [](auto& r) { r.messages[1].role = llm::Role::kAssistant; },
      [](auto& r) { r.messages[0].content = "SU"; },  // field boundaries: "SU","" vs "S","U"
      [](auto& r) { r.messages.pop_back(); },
      [](auto& r) { r.messages[1].reasoning = "hmm"; },
      [](auto& r) { r.tools[0].description = "runs"; },
      [](auto& r) { r.seed = 1; },
      [](auto& r) { r.sampling.temperature = 0.7; },
      [](auto& r) { r.max_tokens = 10; },
      [](auto& r) { r.extra_body_json = R"({"top_k":5})"; },
  };
  for (std::size_t i = 0; i < changes.size(); ++i) {
    INFO("change " << i);
    llm::ChatRequest r = base;
    changes[i](r);
    CHECK(RequestDigest(r) != d);
  }
  llm::ChatRequest boundary = base;
  boundary.messages[0].content = "SU";
  boundary.messages[1].content = "";
  CHECK(RequestDigest(boundary) != d);
}

TEST_CASE("tool outcome kind names round-trip", "[agent][replay]") {
  for (auto k : {ToolOutcome::Kind::kObservation, ToolOutcome::Kind::kInvalidCall, ToolOutcome::Kind::kHarnessError,
                 ToolOutcome::Kind::kPatchTooLarge}) {
    CHECK(ParseToolOutcomeKind(ToolOutcomeKindName(k)) == k);
  }
  CHECK_FALSE(ParseToolOutcomeKind("exploded").has_value());
}

}  // namespace seragen::agent
