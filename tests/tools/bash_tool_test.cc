#include "seragen/tools/bash_tool.h"

#include <catch2/catch.hpp>

#include "testing/fake_command_runner.h"
#include "tools/tools_test_util.h"

namespace seragen::tools {
namespace {

using sandbox::CommandResult;
using sandbox::FakeCommandRunner;
using test::Expected;

CommandResult Result_(std::string output, int exit_code = 0) {
  CommandResult r;
  r.exit_code = exit_code;
  r.output = std::move(output);
  return r;
}

CommandResult TimedOut(std::string output = "") {
  CommandResult r;
  r.exit_code = 137;
  r.killed_by_signal = 9;
  r.timed_out = true;
  r.output = std::move(output);
  return r;
}

ToolOptions Options() {
  ToolOptions o;
  o.bash_limits.timeout = std::chrono::seconds(30);
  o.bash_limits.output_kill_bytes = 1000;
  o.max_consecutive_timeouts = 2;
  return o;
}

TEST_CASE("bash shows output, and the exit code only when it is not zero", "[tools][bash]") {
  FakeCommandRunner fake;
  BashTool bash(&fake, &test::Messages(), Options(), "editor");
  fake.Enqueue(Result_("hello\n"));
  fake.Enqueue(Result_("oops", 2));
  fake.Enqueue(Result_(""));
  fake.Enqueue(Result_("", 1));
  CHECK(bash.Run("echo hello")->observation == "hello\n");
  CHECK(bash.Run("false")->observation == "oops\n" + Expected("bash_exit_code", {{"exit_code", "2"}}));
  CHECK(bash.Run("true")->observation == Expected("bash_no_output", {}));
  auto failed = bash.Run("false");
  CHECK(failed->observation == Expected("bash_exit_code", {{"exit_code", "1"}}));
  CHECK(failed->exit_code == 1);
  CHECK(failed->ran);
}

TEST_CASE("bash states truncation between head and tail", "[tools][bash]") {
  FakeCommandRunner fake;
  BashTool bash(&fake, &test::Messages(), Options(), "editor");
  CommandResult r = Result_("HEAD");
  r.output_tail = "TAIL\n";
  r.omitted_bytes = 5000;
  r.total_output_bytes = 5009;
  fake.Enqueue(r);
  CHECK(bash.Run("cat big")->observation ==
        "HEAD\n" + Expected("bash_truncated", {{"omitted_bytes", "5000"}, {"total_bytes", "5009"}}) + "\nTAIL\n");
}

TEST_CASE("bash reports timeouts and stops after consecutive ones", "[tools][bash]") {
  FakeCommandRunner fake;
  BashTool bash(&fake, &test::Messages(), Options(), "editor");
  const std::string timeout_note = Expected("bash_timeout", {{"timeout_seconds", "30"}});
  fake.Enqueue(TimedOut("partial\n"));
  fake.Enqueue(Result_("ok\n"));
  fake.Enqueue(TimedOut());
  fake.Enqueue(TimedOut());
  auto first = bash.Run("sleep 100");
  CHECK(first->timed_out);
  CHECK(first->observation == "partial\n" + timeout_note);
  CHECK_FALSE(first->stop_requested);
  CHECK(bash.Run("echo ok")->observation == "ok\n");  // resets the count
  CHECK(bash.consecutive_timeouts() == 0);
  CHECK_FALSE(bash.Run("sleep 100")->stop_requested);
  auto second = bash.Run("sleep 100");
  CHECK(second->stop_requested);
  CHECK(second->observation == timeout_note + "\n" + Expected("bash_timeout_limit", {{"count", "2"}}));
  auto refused = bash.Run("echo again");
  CHECK(refused->stop_requested);
  CHECK_FALSE(refused->ran);
  CHECK(refused->observation == Expected("bash_disabled", {{"count", "2"}}));
  CHECK(fake.requests().size() == 4);
}

TEST_CASE("bash names an output overflow kill", "[tools][bash]") {
  FakeCommandRunner fake;
  BashTool bash(&fake, &test::Messages(), Options(), "editor");
  CommandResult r = Result_("yyyy");
  r.output_limit_killed = true;
  r.exit_code = 137;
  fake.Enqueue(r);
  CHECK(bash.Run("yes")->observation == "yyyy\n" + Expected("bash_output_killed", {{"limit_bytes", "1000"}}));
}

TEST_CASE("bash refuses empty and over-long commands without running them", "[tools][bash]") {
  FakeCommandRunner fake;
  BashTool bash(&fake, &test::Messages(), Options(), "editor");
  CHECK(bash.Run("  \n")->observation == Expected("bash_empty_command", {}));
  const std::string huge(sandbox::kMaxCommandBytes + 1, 'x');
  CHECK(bash.Run(huge)->observation ==
        Expected("bash_command_too_long", {{"length", std::to_string(huge.size())},
                                           {"limit", std::to_string(sandbox::kMaxCommandBytes)},
                                           {"editor_tool", "editor"}}));
  CHECK(fake.requests().empty());
}

// Issue 28, finding 13: a NUL byte was answered as "more than the 100000 bytes accepted".
TEST_CASE("bash refuses a command with a NUL byte and says so", "[tools][bash][r2-finding13]") {
  FakeCommandRunner fake;
  BashTool bash(&fake, &test::Messages(), Options(), "editor");
  const std::string command("echo a\0b", 9);
  CHECK(bash.Run(command)->observation == Expected("bash_command_nul", {{"position", "6"}}));
  CHECK(fake.requests().empty());
}

TEST_CASE("bash carries the shell state and passes its limits", "[tools][bash]") {
  FakeCommandRunner fake;
  BashTool bash(&fake, &test::Messages(), Options(), "editor");
  CommandResult r = Result_("");
  r.final_state = sandbox::ShellState{"/repo/src", "declare -x A=\"1\"\n"};
  fake.Enqueue(r);
  fake.Enqueue(Result_("x"));  // reports no state: the old one is kept
  fake.Enqueue(Result_("y"));
  REQUIRE(bash.Run("cd src").ok());
  REQUIRE(bash.Run("ls").ok());
  REQUIRE(bash.Run("ls").ok());
  auto requests = fake.requests();
  REQUIRE(requests.size() == 3);
  CHECK_FALSE(requests[0].state);
  CHECK(requests[0].capture_state);
  REQUIRE(requests[1].state);
  CHECK(requests[1].state->cwd == "/repo/src");
  REQUIRE(requests[2].state);
  CHECK(requests[2].state->cwd == "/repo/src");
  CHECK(fake.limits_seen()[0].timeout == std::chrono::seconds(30));
}

TEST_CASE("sandbox failures are infrastructure errors, not observations", "[tools][bash]") {
  FakeCommandRunner fake;
  BashTool bash(&fake, &test::Messages(), Options(), "editor");
  fake.Enqueue(UnavailableError("the sandbox failed to start"));
  auto r = bash.Run("ls");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::kUnavailable);
}

TEST_CASE("dropped exported variables are named in the observation", "[tools][bash]") {
  FakeCommandRunner fake;
  BashTool bash(&fake, &test::Messages(), Options(), "editor");
  const TemplateValues bounds{{"max_vars", std::to_string(sandbox::kCarriedVarsMax)},
                              {"max_var_chars", std::to_string(sandbox::kCarriedVarMaxChars)},
                              {"max_total_chars", std::to_string(sandbox::kCarriedEnvMaxChars)}};
  CommandResult r = Result_("set\n");
  r.final_state = sandbox::ShellState{"/repo", "declare -x A=\"1\"\n", "BIG HUGE"};
  fake.Enqueue(r);
  TemplateValues named = bounds;
  named["names"] = "BIG HUGE";
  CHECK(bash.Run("export BIG=... HUGE=...")->observation == "set\n" + Expected("bash_env_dropped", named));
  r.final_state = sandbox::ShellState{"/repo", "", "*"};
  fake.Enqueue(r);
  CHECK(bash.Run("export ...")->observation == "set\n" + Expected("bash_env_dropped_all", bounds));
}

TEST_CASE("a start failure caused by exported variables is the agent's, not infrastructure", "[tools][bash]") {
  FakeCommandRunner fake;
  BashTool bash(&fake, &test::Messages(), Options(), "editor");
  // The agent's exports make the next sandbox fail to start; without them it runs.
  fake.SetHandler([](const sandbox::CommandRequest& req, const sandbox::RunLimits&) -> Result<CommandResult> {
    if (req.command == "export BIG=x") {
      CommandResult r = Result_("");
      r.final_state = sandbox::ShellState{"/repo/src", "declare -x BIG=\"x\"\n", ""};
      return r;
    }
    if (req.state && !req.state->exported_env.empty()) return IoError("cannot start bwrap: Argument list too long");
    return Result_("ok\n");
  });
  REQUIRE(bash.Run("export BIG=x").ok());
  auto r = bash.Run("ls");
  REQUIRE(r.ok());
  CHECK(r->observation == "ok\n" + Expected("bash_env_reset", {}));
  REQUIRE(bash.shell_state());
  CHECK(bash.shell_state()->cwd == "/repo/src");  // the directory is kept
  CHECK(bash.shell_state()->exported_env.empty());
  // Later commands run without the variables and without the retry.
  auto again = bash.Run("ls");
  REQUIRE(again.ok());
  CHECK(again->observation == "ok\n");
  CHECK(fake.requests().size() == 4);
}

TEST_CASE("a sandbox that fails also without the exports is still infrastructure", "[tools][bash]") {
  FakeCommandRunner fake;
  BashTool bash(&fake, &test::Messages(), Options(), "editor");
  CommandResult first = Result_("");
  first.final_state = sandbox::ShellState{"/repo", "declare -x A=\"1\"\n", ""};
  fake.Enqueue(first);
  fake.Enqueue(UnavailableError("the sandbox failed to start"));
  fake.Enqueue(UnavailableError("the sandbox failed to start"));
  REQUIRE(bash.Run("export A=1").ok());
  auto r = bash.Run("ls");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::kUnavailable);
}

}  // namespace
}  // namespace seragen::tools
