#include "teacher/script_policy.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>
#include <cstdio>
#include <fstream>

#include "teacher/body_log.h"
#include "teacher/responder.h"
#include "teacher/server.h"
#include "teacher/test_support.h"

using namespace seragen::teacher;
using namespace seragen::teacher::testing;
using nlohmann::json;

namespace {

json AgentBody(const std::string& function, const json& extra_messages = json::array()) {
  json messages = {{{"role", "system"}, {"content", "You are an agent."}},
                   {{"role", "user"}, {"content", Rollout1Prompt(function, "pkg/config.py", 13)}}};
  for (const auto& m : extra_messages) messages.push_back(m);
  return {{"messages", messages}, {"tools", ToolsJson()}};
}

std::string TempPath(const std::string& stem) {
  return "/tmp/seragen-script-test-" + std::to_string(::getpid()) + "-" + stem;
}

Script MustParseScript(const std::string& text) {
  auto s = ParseScript(text, "test.yaml");
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  return *s;
}

std::string ErrorOf(const std::string& text) {
  auto s = ParseScript(text, "test.yaml");
  REQUIRE_FALSE(s.ok());
  return s.status().message();
}

}  // namespace

TEST_CASE("Script: turns per kind, shorthand and lists of calls, raw arguments kept byte for byte") {
  Script s = MustParseScript(R"(
rollout1:
  - tool: bash
    arguments: '{"command": "ls"'
    reasoning: look around
  - content: just text
  - tool_calls:
      - {name: editor, arguments: '{"command":"view","path":"/repo/a\u0000b"}', id: call_x}
      - {name: submit, arguments: '{}'}
    finish_reason: length
judge:
  - content: <answer>no</answer>
)");
  REQUIRE(s.turns.size() == 2);
  const auto& r1 = s.turns.at("rollout1");
  REQUIRE(r1.size() == 3);
  REQUIRE(r1[0].tool_calls.size() == 1);
  CHECK(r1[0].tool_calls[0].name == "bash");
  CHECK(r1[0].tool_calls[0].arguments == R"({"command": "ls")");  // invalid JSON, unchanged
  CHECK(r1[0].reasoning == "look around");
  CHECK(r1[1].tool_calls.empty());
  CHECK(r1[1].content == "just text");
  REQUIRE(r1[2].tool_calls.size() == 2);
  CHECK(r1[2].tool_calls[0].id == "call_x");
  CHECK(r1[2].tool_calls[0].arguments == R"({"command":"view","path":"/repo/a\u0000b"})");
  CHECK(r1[2].finish_reason == "length");
  // JSON is a script format too.
  Script j = MustParseScript(R"({"rollout2": [{"tool": "submit", "arguments": "{}"}]})");
  CHECK(j.turns.at("rollout2").size() == 1);
}

TEST_CASE("Script: a bad script is refused with an error naming the file and the entry") {
  CHECK(ErrorOf("rollout3: []").find("test.yaml: rollout3: unknown request kind") != std::string::npos);
  CHECK(ErrorOf("- 1\n- 2\n").find("expected a mapping from request kind") != std::string::npos);
  CHECK(ErrorOf("rollout1: {tool: bash}").find("rollout1: expected a list of turns") != std::string::npos);
  CHECK(ErrorOf("rollout1: [{tool: bash, arguments: {command: ls}}]")
            .find("rollout1[0].arguments: must be a string holding the raw JSON text") != std::string::npos);
  CHECK(ErrorOf("rollout1: [{content: a}, {tool: bash}]").find("rollout1[1].arguments: missing") != std::string::npos);
  CHECK(ErrorOf("rollout1: [{tool_calls: [{arguments: '{}'}]}]").find("rollout1[0].tool_calls[0].name: missing") !=
        std::string::npos);
  CHECK(ErrorOf("rollout1: [{tool: bash, arguments: '{}', tool_calls: []}]").find("not both") != std::string::npos);
  CHECK(ErrorOf("rollout1: [{arguments: '{}'}]").find("add tool: NAME") != std::string::npos);
  CHECK(ErrorOf("rollout1: [{tool: bash, arguments: '{}', colour: red}]").find("rollout1[0].colour: unknown key") !=
        std::string::npos);
  auto not_yaml = ParseScript("rollout1: [{tool: bash", "x.yaml");
  REQUIRE_FALSE(not_yaml.ok());
  CHECK(not_yaml.status().code() == seragen::StatusCode::kParseError);
  auto missing = LoadScriptFile("/nonexistent/script.yaml");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("/nonexistent/script.yaml") != std::string::npos);
  // The server refuses to start on a bad script, naming it.
  Server server;
  TeacherOptions o;
  o.prompts_dir = PromptsDir();
  o.script_path = "/nonexistent/script.yaml";
  auto started = server.Start(o);
  REQUIRE_FALSE(started.ok());
  CHECK(started.status().message().find("/nonexistent/script.yaml") != std::string::npos);
}

TEST_CASE("ScriptPolicy: turns follow each conversation's own order, other kinds stay rule-based") {
  ScriptPolicy policy(MustParseScript(R"(
rollout1:
  - {tool: bash, arguments: 'first'}
  - {tool: submit, arguments: '{}'}
)"));
  PolicyContext ctx = DefaultContext();
  ChatRequest a = MustParse(AgentBody("parse_config"));
  ChatRequest b = MustParse(AgentBody("load_settings"));
  PolicyReply a0 = policy.Reply(a, ctx);
  CHECK(a0.kind == RequestKind::kRollout1);
  CHECK(a0.rollout_start);
  REQUIRE(a0.tool_calls.size() == 1);
  CHECK(a0.tool_calls[0].name == "bash");
  CHECK(a0.tool_calls[0].arguments == "first");
  CHECK(a0.finish_reason == "tool_calls");
  PolicyReply b0 = policy.Reply(b, ctx);  // another conversation starts at turn 0
  REQUIRE(b0.tool_calls.size() == 1);
  CHECK(b0.tool_calls[0].arguments == "first");
  CHECK(b0.tool_calls[0].id != a0.tool_calls[0].id);
  PolicyReply a1 = policy.Reply(a, ctx);
  REQUIRE(a1.tool_calls.size() == 1);
  CHECK(a1.tool_calls[0].name == "submit");
  CHECK_FALSE(a1.rollout_start);
  PolicyReply a2 = policy.Reply(a, ctx);  // past the end: text, no call
  CHECK(a2.tool_calls.empty());
  CHECK(a2.content.find("no turn 2 for rollout1") != std::string::npos);
  // The judge is not scripted: the rule-based policy answers it.
  std::string judge = ReadPrompt("judge.md");
  PolicyReply j = policy.Reply(MustParse({{"messages", {{{"role", "user"}, {"content", judge}}}}}), ctx);
  CHECK(j.kind == RequestKind::kJudge);
  CHECK(j.content.find("<answer>") != std::string::npos);
}

TEST_CASE("Responder with a script sends 100,000-level nested arguments unchanged, and the body log keeps requests") {
  std::string nested = std::string(100000, '[') + std::string(100000, ']');
  Script script;
  script.turns["rollout1"].push_back(ScriptedTurn{"", "", {ScriptedCall{"", "bash", nested}}, ""});
  TeacherOptions o;
  o.prompts_dir = PromptsDir();
  Responder responder(o, Prompts(), std::make_shared<ScriptPolicy>(std::move(script)));
  ResponsePlan plan = responder.PlanChat(AgentBody("parse_config").dump());
  REQUIRE(plan.status == 200);
  CHECK(plan.record.kind == "rollout1");
  json body = json::parse(plan.body);
  CHECK(body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"].get<std::string>() == nested);

  const std::string log_path = TempPath("bodies.jsonl");
  std::remove(log_path.c_str());
  {
    BodyLog log;
    REQUIRE(log.Open(log_path).ok());
    log.Append("{\"a\":1}");
    log.Append("{\"b\":2}");
  }
  std::ifstream in(log_path);
  std::string l1, l2;
  std::getline(in, l1);
  std::getline(in, l2);
  CHECK(l1 == "{\"a\":1}");
  CHECK(l2 == "{\"b\":2}");
  std::remove(log_path.c_str());
  BodyLog bad;
  CHECK_FALSE(bad.Open("/nonexistent/dir/bodies.jsonl").ok());
}

TEST_CASE("Responder with a script plays hostile usage and endless answers (test-harness faults)") {
  Script script = MustParseScript(R"(
rollout1:
  - {tool: bash, arguments: '{"command": "ls"}', usage: '{"prompt_tokens": 1e30, "completion_tokens": -3}'}
  - {content: 'goes on', endless: true}
)");
  TeacherOptions o;
  o.prompts_dir = PromptsDir();
  Responder responder(o, Prompts(), std::make_shared<ScriptPolicy>(std::move(script)));
  const std::string body = AgentBody("parse_config").dump();
  ResponsePlan hostile = responder.PlanChat(body);
  REQUIRE(hostile.status == 200);
  json usage = json::parse(hostile.body)["usage"];
  CHECK(usage["prompt_tokens"].get<double>() == 1e30);
  CHECK(usage["completion_tokens"].get<int>() == -3);
  ResponsePlan endless = responder.PlanChat(body);
  CHECK(endless.fault == FaultKind::kEndless);
  CHECK(endless.record.fault == "endless");
  CHECK(endless.endless_piece.size() == 65536);
  CHECK(ErrorOf("rollout1:\n  - {content: x, usage: '12'}\n").find("rollout1[0].usage") != std::string::npos);
  CHECK(ErrorOf("rollout1:\n  - {content: x, endless: maybe}\n").find("rollout1[0].endless") != std::string::npos);
}
