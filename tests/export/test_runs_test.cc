#include "seragen/export/test_runs.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "seragen/export/export_rules.h"
#include "seragen/export/record.h"

namespace seragen::exporter {
namespace {

// An accepted turn that ran `command` in the shell with `exit_code`
// (nullopt: no exit status recorded, e.g. a timeout).
agent::TurnRecord ShellTurn(const std::string& command, std::optional<int> exit_code, bool accepted = true) {
  agent::TurnRecord turn;
  turn.accepted = accepted;
  llm::ToolCall call;
  call.name = "bash";
  call.arguments_json = nlohmann::json{{"command", command}}.dump();
  call.arguments_raw = call.arguments_json;
  call.arguments_valid = true;
  turn.response.tool_calls.push_back(call);
  turn.command_exit_code = exit_code;
  return turn;
}

agent::Trajectory WithTurns(std::vector<agent::TurnRecord> turns) {
  agent::Trajectory t;
  t.turns = std::move(turns);
  t.patch = "p";
  t.has_patch = true;
  return t;
}

}  // namespace

TEST_CASE("test runners are recognised, other commands are not", "[export][tests]") {
  for (const char* cmd :
       {"pytest -q", "cd /repo && python3 -m pytest tests/", "python -m unittest discover", "/env/bin/pytest -x",
        "go test ./...", "cargo test --quiet", "npm test", "npx jest", "make test", "python3.11 -m pytest"}) {
    INFO(cmd);
    CHECK(IsTestCommand(cmd, ""));
  }
  for (const char* cmd : {"ls /repo", "cat pytest.ini", "grep -r test .", "python3 repro.py", "go build ./..."}) {
    INFO(cmd);
    CHECK_FALSE(IsTestCommand(cmd, ""));
  }
  CHECK(IsTestCommand("cd /repo && ./run-checks.sh --fast", "./run-checks.sh"));
}

TEST_CASE("the last test run of a rollout decides, failed and rejected turns do not count", "[export][tests]") {
  auto t = WithTurns({ShellTurn("pytest -q", 0), ShellTurn("ls", 0), ShellTurn("python -m pytest tests", 1),
                      ShellTurn("pytest -q", std::nullopt), ShellTurn("pytest", 0, /*accepted=*/false)});
  std::optional<TestRun> run = LastTestRun(t, "");
  REQUIRE(run.has_value());
  CHECK(run->command == "python -m pytest tests");
  CHECK(run->exit_code == 1);
  CHECK_FALSE(run->passed());
  CHECK_FALSE(LastTestRun(WithTurns({ShellTurn("ls", 0)}), "").has_value());
}

TEST_CASE("records carry the last test run in metadata.tests", "[export][tests]") {
  agent::Trajectory t = WithTurns({ShellTurn("./check.sh", 0)});
  t.history = {{llm::Role::kSystem, "s", {}, {}, {}, {}}, {llm::Role::kUser, "u", {}, {}, {}, {}}};
  llm::ToolCall submit;
  submit.id = "c1";
  submit.name = "submit";
  submit.arguments_raw = submit.arguments_json = "{}";
  submit.arguments_valid = true;
  t.history.push_back({llm::Role::kAssistant, "", {}, {submit}, {}, {}});
  t.history.push_back({llm::Role::kTool, "ok", {}, {}, "c1", "submit"});
  t.tools = {{"submit", "Submit.", R"({"type":"object","properties":{}})"}};
  RecordMetadata md;
  md.task_id = "t";
  md.test_command = "./check.sh";
  auto rec = BuildRecord(t, md, {}, {});
  REQUIRE(rec.ok());
  nlohmann::json tests = nlohmann::json::parse(*rec)["metadata"]["tests"];
  CHECK(tests["command"] == "./check.sh");
  CHECK(tests["exit_code"] == 0);
  CHECK(tests["passed"] == true);
  md.test_command.clear();
  CHECK(nlohmann::json::parse(*BuildRecord(t, md, {}, {}))["metadata"]["tests"].is_null());
}

TEST_CASE("require_tests_passed leaves out rollouts whose last test run failed or that ran none", "[export][tests]") {
  ExportRules rules;
  rules.require_tests_passed = true;
  ExportSelector sel(rules);
  agent::Trajectory passed = WithTurns({ShellTurn("pytest", 0)});
  agent::Trajectory failed = WithTurns({ShellTurn("pytest", 0), ShellTurn("pytest", 2)});
  failed.patch = "other";
  RecordedTask task;
  task.task_id = "a";
  task.test_command = "pytest";  // the one claim of the model's that is believed
  task.rollout1 = &passed;
  task.rollout2 = &failed;
  task.verified = true;
  task.judged_yes = true;  // T1 needs a judge yes (export_rules.h); this case is about the tests
  verify::Scores s;
  s.p1_lines = s.p2_lines = s.matched = 1;
  s.recall = s.precision = s.f1 = 1;
  s.scorable = true;
  task.scores = s;
  Selection chosen = sel.Select(task);
  CHECK(chosen.t1);
  CHECK_FALSE(chosen.t2);
  CHECK(sel.excluded().at(kT2TestsNotPassed) == 1);
}

}  // namespace seragen::exporter

namespace seragen::exporter {

// Issue 36: metadata.tests is the model's own command; a recognised runner
// inside any command (`pytest || true`, `echo pytest`) is the model's to
// forge, so --require-tests-passed believes only the configured command.
TEST_CASE("require_tests_passed believes only the repository's own test command, never a forged one",
          "[export][tests]") {
  CHECK(IsConfiguredTestCommand("pytest -q", "pytest -q"));
  CHECK(IsConfiguredTestCommand("  cd /repo && pytest -q\n", "pytest -q"));
  CHECK_FALSE(IsConfiguredTestCommand("pytest -q || true", "pytest -q"));
  CHECK_FALSE(IsConfiguredTestCommand("echo pytest -q", "pytest -q"));
  CHECK_FALSE(IsConfiguredTestCommand("cd $(touch x) && pytest -q", "pytest -q"));
  CHECK_FALSE(IsConfiguredTestCommand("pytest", ""));
  ExportRules rules;
  rules.require_tests_passed = true;
  rules.judge_enabled = false;
  for (const char* forged : {"pytest -q || true", "true # pytest -q", "echo pytest"}) {
    INFO(forged);
    ExportSelector sel(rules);
    agent::Trajectory t = WithTurns({ShellTurn(forged, 0)});
    RecordedTask task;
    task.task_id = "forged";
    task.test_command = "pytest -q";
    task.rollout1 = &t;
    CHECK_FALSE(sel.Select(task).t1);
    CHECK(sel.excluded().at(kT1TestsNotPassed) == 1);
  }
  ExportSelector sel(rules);
  agent::Trajectory real = WithTurns({ShellTurn("cd /repo && pytest -q", 0)});
  RecordedTask task;
  task.task_id = "real";
  task.test_command = "pytest -q";
  task.rollout1 = &real;
  CHECK(sel.Select(task).t1);
}

}  // namespace seragen::exporter
