#include "seragen/sandbox/process.h"

#include <catch2/catch.hpp>

#include "seragen/base/utf8.h"
#include "seragen/sandbox/shell_command.h"

namespace seragen::sandbox {
namespace {

ProcessSpec Shell(const std::string& script) {
  ProcessSpec spec;
  spec.executable = "/bin/bash";
  spec.argv = {"bash", "-c", script};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.timeout = std::chrono::seconds(10);
  return spec;
}

TEST_CASE("exit code and merged stdout/stderr", "[sandbox][process]") {
  auto r = RunProcess(Shell("echo out; echo err >&2; exit 3"));
  REQUIRE(r.ok());
  CHECK(r->exit_code == 3);
  CHECK(r->term_signal == 0);
  CHECK(r->head == "out\nerr\n");
  CHECK(r->tail.empty());
  CHECK(r->omitted_bytes == 0);
  CHECK(r->total_bytes == 8);
}

TEST_CASE("a signalled process reports 128+signal", "[sandbox][process]") {
  auto r = RunProcess(Shell("kill -TERM $$"));
  REQUIRE(r.ok());
  CHECK(r->term_signal == 15);
  CHECK(r->exit_code == 143);
}

TEST_CASE("the environment is exactly the given one and stdin is empty", "[sandbox][process]") {
  ::setenv("SERAGEN_LEAK_PROBE", "leaked", 1);
  auto r = RunProcess(Shell("echo \"[$SERAGEN_LEAK_PROBE]\"; cat; echo done"));
  REQUIRE(r.ok());
  CHECK(r->head == "[]\ndone\n");
}

TEST_CASE("long output keeps head and tail on character boundaries", "[sandbox][process]") {
  // 3-byte characters, so a byte cap falls inside one.
  auto spec = Shell("for i in $(seq 1 2000); do printf '\\xe2\\x82\\xac'; done; printf END");
  spec.head_bytes = 100;
  spec.tail_bytes = 50;
  auto r = RunProcess(spec);
  REQUIRE(r.ok());
  CHECK(r->total_bytes == 6003);
  CHECK(r->head.size() == 99);  // 33 whole characters
  CHECK(IsValidUtf8(r->head));
  CHECK(IsValidUtf8(r->tail));
  CHECK(r->tail.size() <= 50);
  CHECK(r->tail.substr(r->tail.size() - 3) == "END");
  CHECK(r->head.size() + r->tail.size() + r->omitted_bytes == 6003);
}

TEST_CASE("output just at the cap is kept whole", "[sandbox][process]") {
  auto spec = Shell("head -c 150 /dev/zero | tr '\\0' x");
  spec.head_bytes = 100;
  spec.tail_bytes = 50;
  auto r = RunProcess(spec);
  REQUIRE(r.ok());
  CHECK(r->head == std::string(150, 'x'));
  CHECK(r->omitted_bytes == 0);
}

TEST_CASE("timeout kills the whole process group", "[sandbox][process]") {
  auto spec = Shell("sleep 30 & sleep 30; echo never");
  spec.timeout = std::chrono::milliseconds(300);
  auto r = RunProcess(spec);
  REQUIRE(r.ok());
  CHECK(r->timed_out);
  CHECK(r->term_signal == 9);
  CHECK(r->head.find("never") == std::string::npos);
  CHECK(r->duration < std::chrono::seconds(5));
}

TEST_CASE("a background job holding the pipe does not block completion", "[sandbox][process]") {
  auto r = RunProcess(Shell("sleep 30 & echo started"));
  REQUIRE(r.ok());
  CHECK(r->exit_code == 0);
  CHECK(r->head == "started\n");
  CHECK_FALSE(r->timed_out);
  CHECK(r->duration < std::chrono::seconds(5));
}

TEST_CASE("too much output kills the process without buffering it", "[sandbox][process]") {
  auto spec = Shell("cat /dev/zero");
  spec.head_bytes = 1000;
  spec.tail_bytes = 100;
  spec.kill_after_bytes = 8 * 1024 * 1024;
  auto r = RunProcess(spec);
  REQUIRE(r.ok());
  CHECK(r->output_limit_killed);
  CHECK_FALSE(r->timed_out);
  CHECK(r->head.size() == 1000);
  CHECK(r->tail.size() == 100);
  CHECK(r->total_bytes > 8u * 1024 * 1024);
}

TEST_CASE("a missing program is an error naming it", "[sandbox][process]") {
  ProcessSpec spec = Shell("true");
  spec.executable = "/nonexistent/seragen-tool";
  auto r = RunProcess(spec);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::kIoError);
  CHECK(r.status().message().find("/nonexistent/seragen-tool") != std::string::npos);
  CHECK(r.status().message().find("No such file") != std::string::npos);
}

TEST_CASE("a missing working directory is an error naming it", "[sandbox][process]") {
  ProcessSpec spec = Shell("true");
  spec.cwd = "/nonexistent/dir";
  auto r = RunProcess(spec);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("/nonexistent/dir") != std::string::npos);
}

TEST_CASE("the side channel carries the shell state", "[sandbox][process]") {
  CommandRequest request("cd /usr; export FOO='a b'");
  request.capture_state = true;
  ProcessSpec spec = Shell("");
  spec.argv = BuildShellArgv("/bin/bash", request);
  spec.side_channel = true;
  auto r = RunProcess(spec);
  REQUIRE(r.ok());
  auto state = ParseShellState(r->side_channel);
  REQUIRE(state);
  CHECK(state->cwd == "/usr");
  CHECK(state->exported_env.find("declare -x FOO=\"a b\"") != std::string::npos);

  // Restored in the next command, which sees no wrapper parameters.
  CommandRequest next("echo \"$PWD|$FOO|$#|$1\"");
  next.state = state;
  ProcessSpec spec2 = Shell("");
  spec2.argv = BuildShellArgv("/bin/bash", next);
  auto r2 = RunProcess(spec2);
  REQUIRE(r2.ok());
  CHECK(r2->head == "/usr|a b|0|\n");
}

TEST_CASE("the wrapper keeps the command's exit status and ignores a bad directory",
          "[sandbox][process]") {
  CommandRequest request("exit 7");
  request.state = ShellState{"/nonexistent-dir", ""};
  request.capture_state = true;
  ProcessSpec spec = Shell("");
  spec.cwd = "/";
  spec.argv = BuildShellArgv("/bin/bash", request);
  spec.side_channel = true;
  auto r = RunProcess(spec);
  REQUIRE(r.ok());
  CHECK(r->exit_code == 7);
  auto state = ParseShellState(r->side_channel);
  REQUIRE(state);
  CHECK(state->cwd == "/");
}

TEST_CASE("ParseShellState rejects malformed reports", "[sandbox][process]") {
  using namespace std::string_literals;
  CHECK_FALSE(ParseShellState(""));
  CHECK_FALSE(ParseShellState("S"));
  CHECK_FALSE(ParseShellState("Sno-nul"));
  CHECK_FALSE(ParseShellState("Srelative\0x"s));
  CHECK_FALSE(ParseShellState("/repo\0\0declare -x A=\"1\"\n"s));  // the shell never started
  auto ok = ParseShellState("S/repo\0B C\0declare -x A=\"1\"\n"s);
  REQUIRE(ok);
  CHECK(ok->cwd == "/repo");
  CHECK(ok->dropped_exports == "B C");
  CHECK(ok->exported_env == "declare -x A=\"1\"\n");
  // Too big, cut off, or without the export part: the directory only.
  auto big = ParseShellState("S/repo\0\0"s + std::string(kCarriedEnvMaxBytes + 1, 'x'));
  REQUIRE(big);
  CHECK(big->cwd == "/repo");
  CHECK(big->exported_env.empty());
  CHECK(big->dropped_exports == "*");
  auto cut = ParseShellState("S/repo\0\0declare -x A=\"1\"\n"s, /*overflowed=*/true);
  REQUIRE(cut);
  CHECK(cut->exported_env.empty());
  CHECK(cut->dropped_exports == "*");
}

TEST_CASE("exported variables past the bounds are not carried, and are named", "[sandbox][process]") {
  CommandRequest request("export BIG=$(head -c 200000 /dev/zero | tr '\\0' a); export SMALL=1; "
                         "for ((i = 1; i <= 300; i++)); do export V$i=x; done");
  request.capture_state = true;
  ProcessSpec spec = Shell("");
  spec.argv = BuildShellArgv("/bin/bash", request);
  spec.side_channel = true;
  auto r = RunProcess(spec);
  REQUIRE(r.ok());
  auto state = ParseShellState(r->side_channel, r->side_channel_overflow);
  REQUIRE(state);
  CHECK(state->dropped_exports.rfind("BIG ", 0) == 0);
  CHECK(state->dropped_exports.find("V99") != std::string::npos);  // past the count bound
  CHECK(state->exported_env.find("SMALL") != std::string::npos);
  CHECK(state->exported_env.find("BIG") == std::string::npos);
  CHECK(state->exported_env.size() <= kCarriedEnvMaxBytes);

  CommandRequest next("echo \"${#BIG}|$SMALL|$V1\"");
  next.state = state;
  ProcessSpec spec2 = Shell("");
  spec2.argv = BuildShellArgv("/bin/bash", next);
  auto r2 = RunProcess(spec2);
  REQUIRE(r2.ok());
  CHECK(r2->head == "0|1|x\n");
}

TEST_CASE("commands with NUL bytes or over the length limit are refused", "[sandbox][process]") {
  CHECK(CheckCommandText("ls").ok());
  CHECK(CheckCommandText(std::string("a\0b", 3)).code() == StatusCode::kInvalidArgument);
  CHECK(CheckCommandText(std::string(kMaxCommandBytes + 1, 'a')).message().find("limit") !=
        std::string::npos);
}

TEST_CASE("FindExecutable searches PATH", "[sandbox][process]") {
  auto found = FindExecutable("bash", "/nonexistent:/usr/bin:/bin");
  REQUIRE(found.ok());
  CHECK(found->find("/bash") != std::string::npos);
  auto missing = FindExecutable("seragen-no-such-tool", "/usr/bin");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("seragen-no-such-tool") != std::string::npos);
}

}  // namespace
}  // namespace seragen::sandbox
