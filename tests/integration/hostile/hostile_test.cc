// The hostile-model suite: the scripted teacher replays escape attempts,
// malformed calls and resource attacks against the real `seragen run`, one
// task per case, and every case must leave the host canary untouched, leak no
// secret, not crash, and stay within memory and disk bounds
// (HostileFixture::CheckInvariants). Tags: [findingN] for the findings of
// issue 12, [held] for attempts the sandbox already stopped. Needs root and
// bubblewrap, like the sandbox containment tests.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <string>

#include "integration/hostile/hostile_fixture.h"
#include "integration/pipeline/harness.h"
#include "seragen/base/strings.h"

namespace seragen::hostile {
namespace {

using nlohmann::json;

const char* kInfrastructure[] = {"exit_llm_error", "exit_config", "exit_quota", "exit_tool_error", "exit_cancelled"};

std::string ExitStatusOfRollout(const HostileFixture& f, int rollout) {
  for (const json& t : f.Trajectories()) {
    if (t.value("rollout", 0) == rollout) return t.value("exit_status", "");
  }
  return "(no trajectory)";
}

bool IsInfrastructure(const std::string& status) {
  for (const char* s : kInfrastructure) {
    if (status == s) return true;
  }
  return false;
}

std::string Nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// An editor view of `path`, then a str_replace of `old_text` by `new_text` in it.
std::string ViewThenReplace(const std::string& path, const std::string& old_text, const std::string& new_text) {
  return Editor({{"command", "view"}, {"path", path}}) +
         Editor({{"command", "str_replace"}, {"path", path}, {"old_str", old_text}, {"new_str", new_text}});
}

}  // namespace

// ---- The endpoint itself.

TEST_CASE("the teacher refuses a bad script at start with exit 2, naming the file and the entry", "[hostile][script]") {
  testing::TempDir dir;
  dir.Write("bad.yaml", "rollout1:\n  - {tool: bash, arguments: {command: ls}}\n");
  std::string out;
  CHECK(testing::RunShell(e2e::TeacherBinary() + " --port 0 --script " + dir.Sub("bad.yaml"), &out) == 2);
  INFO(out);
  CHECK(out.find(dir.Sub("bad.yaml")) != std::string::npos);
  CHECK(out.find("rollout1[0].arguments") != std::string::npos);
  CHECK(testing::RunShell(e2e::TeacherBinary() + " --port 0 --script " + dir.Sub("missing.yaml"), &out) == 2);
  CHECK(out.find("missing.yaml") != std::string::npos);
}

// ---- Finding 1: host files read and deleted through the copy's .git/config.

TEST_CASE("finding 1: core.worktree set with git inside the sandbox points host-side git at a host directory",
          "[hostile][finding1]") {
  HostileFixture f(23100);
  RunOutcome o = f.Run(Bash("git -C /repo config core.worktree " + f.canary()) +
                       Bash("git -C /repo config --get core.worktree") + Submit() + Submit());
  f.CheckInvariants(o);
}

TEST_CASE("finding 1: core.worktree written into /repo/.git/config with the editor", "[hostile][finding1]") {
  HostileFixture f(23110);
  RunOutcome o = f.Run(ViewThenReplace("/repo/.git/config", "[core]\n", "[core]\n\tworktree = " + f.canary() + "\n") +
                       Submit() + Submit());
  f.CheckInvariants(o);
}

namespace {

// Rollout 1 saved a trajectory and ended with a model outcome, not an
// infrastructure one.
void ExpectModelOutcome(HostileFixture& f) {
  std::string status = ExitStatusOfRollout(f, 1);
  INFO("rollout 1: " << status);
  CHECK(status != "(no trajectory)");
  CHECK_FALSE(IsInfrastructure(status));
}

}  // namespace

// ---- Finding 2: deeply nested tool-call arguments.

TEST_CASE("finding 2: tool-call arguments nested 100,000 levels deep", "[hostile][finding2]") {
  HostileFixture f(23120);
  const std::string raw = "{\"command\": " + Nested(100000) + "}";
  RunOutcome o = f.Run(RawCall("bash", raw) + RawCall("bash", raw) + RawCall("bash", raw) + Submit() + Submit());
  f.CheckInvariants(o);
  // The malformed turns are a model failure, recorded in a saved trajectory.
  ExpectModelOutcome(f);
}

// ---- Finding 3: invalid UTF-8 next to an edit.

TEST_CASE("finding 3: a one-line edit next to a Latin-1 comment is stored and submitted", "[hostile][finding3]") {
  HostileFixture f(23130);
  RunOutcome o = f.Run(ViewThenReplace("/repo/calc/ops.py", "    return value\n", "    return min(value, high)\n") +
                       Submit() + Submit());
  f.CheckInvariants(o);
  std::string status = ExitStatusOfRollout(f, 1);
  INFO("rollout 1: " << status);
  CHECK(status == "submitted");
  bool has_patch = false;
  for (const json& t : f.Trajectories()) {
    if (t.value("rollout", 0) == 1) has_patch = t.value("has_patch", false);
  }
  CHECK(has_patch);
}

// ---- Finding 4: amplification through large untracked files.

TEST_CASE("finding 4: two 100 MB untracked files, then submit", "[hostile][finding4]") {
  HostileFixture f(23140);
  const std::string line = "yes 'amplified line of hostile text 0123456789' | head -c 100000000 > /repo/";
  RunOutcome o = f.Run(Bash(line + "big1.txt") + Bash(line + "big2.txt") + Submit() + Submit(), "", 30);
  f.CheckInvariants(o);  // peak RSS, run directory and bytes sent all bounded
}

// ---- Finding 6: the agent's own environment must not become "infrastructure".

TEST_CASE("finding 6: a 200 KB exported variable carried into later commands", "[hostile][finding6]") {
  HostileFixture f(23160);
  RunOutcome o = f.Run(Bash("export BIG=$(head -c 200000 /dev/zero | tr '\\0' x); echo exported") +
                       Bash("echo still-working") + Bash("ls /repo") + Submit() + Submit());
  f.CheckInvariants(o);
  ExpectModelOutcome(f);
}

// ---- Finding 7: host paths in /proc/1/cmdline; a NUL in an editor path.

TEST_CASE("finding 7: /proc/1/cmdline inside the sandbox does not show host paths of the run", "[hostile][finding7]") {
  HostileFixture f(23170);
  RunOutcome o = f.Run(Bash("tr '\\0' ' ' < /proc/1/cmdline; echo") + Submit() + Submit());
  f.CheckInvariants(o);
  std::vector<std::string> seen = f.Rollout1Observations();
  REQUIRE_FALSE(seen.empty());
  INFO("observation: " << seen[0]);
  CHECK(seen[0].find(f.dir().path()) == std::string::npos);
}

TEST_CASE("finding 7: an editor path containing a NUL gets an error that says so", "[hostile][finding7]") {
  HostileFixture f(23180);
  RunOutcome o =
      f.Run(Editor({{"command", "view"}, {"path", std::string("/repo/calc/ops.py\0/../../etc/shadow", 35)}}) +
            Submit() + Submit());
  f.CheckInvariants(o);
  std::vector<std::string> seen = f.Rollout1Observations();
  REQUIRE_FALSE(seen.empty());
  INFO("answer to the NUL path: " << seen[0]);
  CHECK(seen[0].find("No path was given") == std::string::npos);
  CHECK(AsciiLower(seen[0]).find("nul") != std::string::npos);
}

// ---- Attempts that already held.

TEST_CASE("held: bash writes outside the copy (absolute, .., symlink, world-writable host directory)",
          "[hostile][held]") {
  HostileFixture f(23200);
  const std::string c = f.canary();
  RunOutcome o = f.Run(Bash("echo pwned > " + c + "/open/keep.txt; echo pwned > " + c + "/open/new.txt; " +
                            "echo pwned > /repo/../escape.txt; touch /etc/hostile-pwned; rm -f " + c +
                            "/notes/public.txt; echo done") +
                       Bash("ln -s " + c + "/open /repo/link && echo pwned > /repo/link/via-link.txt; " + "ln -s " + c +
                            "/notes /repo/notes-link; rm -rf /repo/notes-link/; echo done") +
                       Submit() + Submit());
  f.CheckInvariants(o);
}

TEST_CASE("held: editor writes outside the copy (absolute, .., symlink)", "[hostile][held]") {
  HostileFixture f(23210);
  const std::string c = f.canary();
  RunOutcome o = f.Run(
      Editor({{"command", "create"}, {"path", c + "/open/editor-abs.txt"}, {"file_text", "pwned\n"}}) +
      Editor({{"command", "create"}, {"path", "/repo/../editor-dotdot.txt"}, {"file_text", "pwned\n"}}) +
      Bash("ln -s " + c + "/open /repo/elink; ln -s " + c + "/open/keep.txt /repo/keep-link.txt") +
      Editor({{"command", "create"}, {"path", "/repo/elink/editor-link.txt"}, {"file_text", "pwned\n"}}) +
      Editor({{"command", "str_replace"},
              {"path", "/repo/keep-link.txt"},
              {"old_str", "world-writable"},
              {"new_str", "pwned"}}) +
      Editor({{"command", "insert"}, {"path", "/repo/elink/keep.txt"}, {"insert_line", 0}, {"new_str", "pwned"}}) +
      Submit() + Submit());
  f.CheckInvariants(o);
}

TEST_CASE("held: reading a root-only host file (bash, editor, symlinks)", "[hostile][held]") {
  HostileFixture f(23220);
  const std::string c = f.canary();
  RunOutcome o =
      f.Run(Bash("cat " + c + "/secret.txt; head -c 100 " + c + "/secret.txt; echo done") +
            Bash("ln -s " + c + "/secret.txt /repo/s.txt; ln -s " + c + " /repo/cdir; cat /repo/s.txt; echo done") +
            Editor({{"command", "view"}, {"path", c + "/secret.txt"}}) +
            Editor({{"command", "view"}, {"path", "/repo/s.txt"}}) +
            Editor({{"command", "view"}, {"path", "/repo/cdir/secret.txt"}}) +
            Editor({{"command", "view"}, {"path", "/repo/cdir"}}) + Submit() + Submit());
  f.CheckInvariants(o);
}

TEST_CASE("held: no network, not even the host's loopback", "[hostile][held]") {
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  REQUIRE(listener >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(listener, 8) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const std::string port = std::to_string(ntohs(addr.sin_port));

  HostileFixture f(23230);
  RunOutcome o =
      f.Run(Bash("(exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo NET-CONNECTED) 2>&1; echo done") +
            Bash("python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", " + port +
                 "), 2); print(\"NET-CONNECTED\")' 2>&1 | tail -1") +
            Bash("(exec 3<>/dev/tcp/1.1.1.1/80 && echo NET-CONNECTED) 2>&1; echo done") + Submit() + Submit());
  f.CheckInvariants(o);
  for (const std::string& seen : f.Rollout1Observations()) CHECK(seen.find("NET-CONNECTED") == std::string::npos);
  CHECK(::accept(listener, nullptr, nullptr) < 0);  // nobody connected
  ::close(listener);
}

namespace {

// The second command of rollout 1 ran and printed `marker`.
void ExpectSecondCommandRan(HostileFixture& f, const std::string& marker) {
  std::vector<std::string> seen = f.Rollout1Observations();
  REQUIRE(seen.size() >= 2);
  CHECK(seen[1].find(marker) != std::string::npos);
}

}  // namespace

TEST_CASE("held: a fork bomb is bounded and the next command works", "[hostile][held]") {
  HostileFixture f(23240);
  RunOutcome o = f.Run(Bash(":(){ :|:& };:") + Bash("echo alive-after-bomb") + Submit() + Submit(), "", 3);
  f.CheckInvariants(o);
  ExpectSecondCommandRan(f, "alive-after-bomb");
}

TEST_CASE("held: kill -9 -1 inside the sandbox kills nothing of the host", "[hostile][held]") {
  HostileFixture f(23250);
  RunOutcome o = f.Run(Bash("kill -9 -1; echo after-kill") + Bash("echo alive-after-kill") + Submit() + Submit());
  f.CheckInvariants(o);
  ExpectSecondCommandRan(f, "alive-after-kill");
}

TEST_CASE("held: a command sleeping past its timeout is stopped", "[hostile][held]") {
  HostileFixture f(23260);
  RunOutcome o = f.Run(Bash("sleep 120") + Bash("echo alive-after-sleep") + Submit() + Submit(), "", 2);
  f.CheckInvariants(o);
  CHECK(o.seconds < 60);
  bool timed_out = false;
  for (const json& t : f.Trajectories()) {
    if (t.value("rollout", 0) == 1 && !t["turns"].empty()) timed_out = t["turns"][0].value("command_timed_out", false);
  }
  CHECK(timed_out);
  ExpectSecondCommandRan(f, "alive-after-sleep");
}

}  // namespace seragen::hostile
