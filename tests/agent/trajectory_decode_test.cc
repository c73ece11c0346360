// Reading trajectory files (agent/trajectory_decode.cc) on hostile bytes: a
// trajectory file lies in a run directory the agent's sandbox wrote next to.
// Every input gives a value or an error, never an exception or a crash, and
// whatever loads saves and loads again unchanged.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>

#include "seragen/agent/trajectory_json.h"

namespace seragen::agent {
namespace {

// Every optional field set, so a round trip checks each one.
Trajectory Full() {
  Trajectory t{.task_id = "t1", .rollout = 2, .model = "m", .prompts_hash = "ph"};
  t.tools.push_back({"bash", "runs", R"({"properties":{"command":{"type":"string"}},"type":"object"})"});
  t.tools.push_back({"odd", "schema text that is not JSON", "not json {"});
  llm::Message m{llm::Role::kAssistant, "c", "r"};
  m.tool_calls.push_back({"id1", "bash", R"({"command":"ls"})", true, R"({"command":"ls"})", ""});
  m.tool_call_id = "id0";
  m.name = "n";
  t.history = {llm::Message{llm::Role::kSystem, "sys"}, m};
  TurnRecord turn;
  turn.step = 3;
  turn.format_error = "no_tool_call";
  turn.format_error_message = "use a tool";
  turn.response.id = "resp";
  turn.response.tool_calls = m.tool_calls;
  turn.response.reasoning_source = llm::ReasoningSource::kThinkTag;
  turn.response.tool_issue = llm::ToolIssue::kToolArgs;
  turn.response.usage = {true, 10, 5, 15, 4, 2};
  turn.observation = "out";
  turn.command_timed_out = true;
  turn.command_exit_code = -9;
  turn.replayed = turn.replay_observation_differs = true;
  turn.replay_observation = "other";
  turn.llm_seconds = 1.25;
  TurnRecord failed;
  failed.failure = "server said no";
  failed.failure_class = "transient";
  t.turns = {turn, failed};
  t.exit_status = ExitStatus::kSteps;
  t.exit_detail = "limit";
  t.patch = "diff --git a/x b/x\n+\xff latin-1\n";
  t.has_patch = t.autosubmitted = true;
  t.totals = {1, 2, 3, 0.5, 4, 1, 5, 6, 7.5, 8.25};
  t.started_at = "a";
  t.finished_at = "b";
  return t;
}

// Decoding `text` must return (not throw); what loads must save and load again.
void CheckTotal(const std::string& text) {
  Result<Trajectory> t = TrajectoryFromJson(text);
  if (!t.ok()) {
    CHECK(t.status().code() == StatusCode::kParseError);
    return;
  }
  std::string saved = TrajectoryToJson(*t);
  Result<Trajectory> back = TrajectoryFromJson(saved);
  REQUIRE(back.ok());
  CHECK(TrajectoryToJson(*back) == saved);
  CHECK(back->patch == t->patch);
}

TEST_CASE("a trajectory with every optional field round-trips through its file", "[agent]") {
  std::string text = TrajectoryToJson(Full());
  Result<Trajectory> back = TrajectoryFromJson(text);
  REQUIRE(back.ok());
  CHECK(TrajectoryToJson(*back) == text);
  CHECK(back->patch == Full().patch);
  CHECK(back->tools[1].parameters_json == "not json {");
  CHECK(back->turns[0].command_exit_code == -9);
  CHECK(back->turns[0].response.usage.reasoning_tokens == 2);
  CHECK(back->turns[0].response.reasoning_source == llm::ReasoningSource::kThinkTag);
  CHECK(back->history[1].role == llm::Role::kAssistant);
}

TEST_CASE("hostile trajectory files are errors naming what is wrong", "[agent]") {
  const std::string good = TrajectoryToJson(Full());
  auto error_of = [](const std::string& text) {
    Result<Trajectory> t = TrajectoryFromJson(text);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == StatusCode::kParseError);
    return t.status().message();
  };
  constexpr std::size_t kDeep = 1000000;
  CHECK_THAT(error_of(std::string(kDeep, '[') + std::string(kDeep, ']')), Catch::Contains("nests deeper than 128"));
  std::string bad_utf8 = good;
  bad_utf8.replace(bad_utf8.find("\"sys\""), 5, "\"s\xc3\x28\"");
  CHECK_THAT(error_of(bad_utf8), Catch::Contains("UTF-8"));
  std::string wrong_type = good;
  wrong_type.replace(wrong_type.find("\"rollout\":2"), 11, "\"rollout\":\"2\"");
  CHECK_THAT(error_of(wrong_type), Catch::Contains("'rollout' has the wrong type"));
  std::string no_role = good;
  no_role.replace(no_role.find("\"role\":\"system\""), 15, "\"role\":\"boss\"");
  CHECK_THAT(error_of(no_role), Catch::Contains("unknown role 'boss'"));
  CHECK_THAT(error_of("[1,2]"), Catch::Contains("not an object"));
  CHECK_THAT(error_of(R"({"format":"seragen-trajectory","version":99})"), Catch::Contains("version 99"));
  CHECK_THAT(error_of(R"({"format":"other"})"), Catch::Contains("not a seragen trajectory"));
  // A string of 32 MB is only big: it loads.
  std::string huge = good;
  huge.replace(huge.find("\"out\""), 5, "\"" + std::string(32u << 20, 'x') + "\"");
  Result<Trajectory> big = TrajectoryFromJson(huge);
  REQUIRE(big.ok());
  CHECK(big->turns[0].observation.size() == (32u << 20));
}

TEST_CASE("truncated and mutated trajectory files never throw or crash", "[agent]") {
  const std::string good = TrajectoryToJson(Full());
  for (std::size_t n = 0; n < good.size(); ++n) CheckTotal(good.substr(0, n));
  std::mt19937_64 rng(29);  // fixed: the same mutants every run
  const std::string bytes = "{}[]\",:0\\\xff\xc3\x80 nulltruefalse";
  for (int i = 0; i < 3000; ++i) {
    std::string text = good;
    for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) {
      std::size_t at = rng() % text.size();
      char c = bytes[rng() % bytes.size()];
      if (rng() % 2) text[at] = c;
      else text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
    }
    CheckTotal(text);
  }
}

}  // namespace
}  // namespace seragen::agent
