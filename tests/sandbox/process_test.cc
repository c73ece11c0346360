#include "seragen/sandbox/process.h"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "sandbox/shell_command.h"
#include "seragen/base/utf8.h"
#include "seragen/sandbox/reaper_path.h"
#include "seragen/sandbox/reaper_spec.h"
#include "seragen/sandbox/slot_cgroup.h"
#include "testing/temp_dir.h"

#include <sys/stat.h>

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

// Shell(script) keeping the first 100 and the last 50 bytes of output.
ProcessSpec CappedShell(const std::string& script) {
  ProcessSpec spec = Shell(script);
  spec.head_bytes = 100;
  spec.tail_bytes = 50;
  return spec;
}

// Runs `request` through the shell wrapper in bash (in `cwd` when given),
// with the side channel open when it captures the state; REQUIREs it ran.
ProcessOutcome RunWrapped(const CommandRequest& request, const std::string& cwd = "") {
  ProcessSpec spec = Shell("");
  if (!cwd.empty()) spec.cwd = cwd;
  spec.argv = BuildShellArgv("/bin/bash", request);
  spec.side_channel = request.capture_state;
  auto r = RunProcess(spec);
  REQUIRE(r.ok());
  return std::move(r).value();
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
  auto r = RunProcess(CappedShell("for i in $(seq 1 2000); do printf '\\xe2\\x82\\xac'; done; printf END"));
  REQUIRE(r.ok());
  CHECK(r->total_bytes == 6003);
  CHECK(r->head.size() == 99);  // 33 whole characters
  CHECK(IsValidUtf8(r->head));
  CHECK(IsValidUtf8(r->tail));
  CHECK(r->tail.size() <= 50);
  CHECK(r->tail.substr(r->tail.size() - 3) == "END");
  CHECK(r->head.size() + r->tail.size() + r->omitted_bytes == 6003);
}

// Code points in valid UTF-8 text: what Python's len() counts.
std::size_t CountChars(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Runs a command printing `text` `times` times under `limits`' output cap,
// as the runners do: the cap split by ApplyRunLimits, the cut by ToCommandResult.
CommandResult RunPrinting(const std::string& text, int times, const RunLimits& limits) {
  std::string escaped;
  for (unsigned char c : text) escaped += fmt::format("\\x{:02x}", c);
  ProcessSpec spec = Shell("for i in $(seq 1 " + std::to_string(times) + "); do printf '" + escaped + "'; done");
  ApplyRunLimits(limits, &spec);
  auto r = RunProcess(spec);
  REQUIRE(r.ok());
  return ToCommandResult(std::move(r).value(), false, limits);
}

TEST_CASE("the output cap counts characters as SWE-agent's len() does, never splitting one", "[sandbox][process]") {
  RunLimits limits;
  limits.output_cap_chars = 64;
  for (const std::string text :
       {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"}) {
    CAPTURE(text);
    std::string whole;
    for (int i = 0; i < 200; ++i) whole += text;
    CommandResult r = RunPrinting(text, 200, limits);
    CHECK(r.truncated());
    CHECK(IsValidUtf8(r.output));
    CHECK(IsValidUtf8(r.output_tail));
    CHECK(CountChars(r.output) == 48);  // the first 3/4 of the cap
    CHECK(CountChars(r.output_tail) == 16);
    CHECK(whole.starts_with(r.output));
    CHECK(whole.ends_with(r.output_tail));
    CHECK(r.omitted_bytes == whole.size() - r.output.size() - r.output_tail.size());
  }
  // 64 astral characters (256 bytes) are within a 64-character cap: kept whole.
  CommandResult at_cap = RunPrinting("\xf0\x9f\x98\x80", 64, limits);
  CHECK_FALSE(at_cap.truncated());
  CHECK(CountChars(at_cap.output) == 64);
  CHECK(at_cap.output_tail.empty());
}

TEST_CASE("output just at the cap is kept whole", "[sandbox][process]") {
  auto r = RunProcess(CappedShell("head -c 150 /dev/zero | tr '\\0' x"));
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
  auto state = ParseShellState(RunWrapped(request).side_channel);
  REQUIRE(state);
  CHECK(state->cwd == "/usr");
  CHECK(state->exported_env.find("declare -x FOO=\"a b\"") != std::string::npos);

  // Restored in the next command, which sees no wrapper parameters.
  CommandRequest next("echo \"$PWD|$FOO|$#|$1\"");
  next.state = state;
  CHECK(RunWrapped(next).head == "/usr|a b|0|\n");
}

TEST_CASE("the wrapper keeps the command's exit status and ignores a bad directory", "[sandbox][process]") {
  CommandRequest request("exit 7");
  request.state = ShellState{"/nonexistent-dir", ""};
  request.capture_state = true;
  ProcessOutcome out = RunWrapped(request, "/");
  CHECK(out.exit_code == 7);
  auto state = ParseShellState(out.side_channel);
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
  CommandRequest request(
      "export BIG=$(head -c 200000 /dev/zero | tr '\\0' a); export SMALL=1; "
      "for ((i = 1; i <= 300; i++)); do export V$i=x; done");
  request.capture_state = true;
  ProcessOutcome out = RunWrapped(request);
  auto state = ParseShellState(out.side_channel, out.side_channel_overflow);
  REQUIRE(state);
  CHECK(state->dropped_exports.rfind("BIG ", 0) == 0);
  CHECK(state->dropped_exports.find("V99") != std::string::npos);  // past the count bound
  CHECK(state->exported_env.find("SMALL") != std::string::npos);
  CHECK(state->exported_env.find("BIG") == std::string::npos);
  CHECK(state->exported_env.size() <= kCarriedEnvMaxBytes);

  CommandRequest next("echo \"${#BIG}|$SMALL|$V1\"");
  next.state = state;
  CHECK(RunWrapped(next).head == "0|1|x\n");
}

TEST_CASE("commands with NUL bytes or over the length limit are refused", "[sandbox][process]") {
  CHECK(CheckCommandText("ls").ok());
  CHECK(CheckCommandText(std::string("a\0b", 3)).code() == StatusCode::kInvalidArgument);
  CHECK(CheckCommandText(std::string(kMaxCommandBytes + 1, 'a')).message().find("limit") != std::string::npos);
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

namespace seragen::sandbox {
namespace {

TEST_CASE("the reaper joins the given cgroup before the program starts", "[sandbox][process]") {
  testing::TempDir dir;
  FakeSlotCgroups cgroups(dir.path());
  auto procs = cgroups.PrepareSlot(21400, 64ull << 20);
  REQUIRE(procs.ok());
  CHECK(cgroups.prepared().at(21400) == (64ull << 20));
  ProcessSpec spec = Shell("echo ran");
  spec.cgroup_procs = *procs;
  auto r = RunProcess(spec);
  REQUIRE(r.ok());
  CHECK(r->head == "ran\n");
  std::string written;
  REQUIRE(testing::RunShell("cat " + *procs, &written) == 0);
  CHECK(written == "0");  // "0" = the writing process (the reaper) joins

  spec.cgroup_procs = dir.Sub("missing/cgroup.procs");
  auto failed = RunProcess(spec);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.status().message().find("cgroup") != std::string::npos);
}

TEST_CASE("cgroup v2 slots: detection names why it is unavailable, slots get memory.max", "[sandbox][cgroup]") {
  testing::TempDir dir;
  // A plain directory is no cgroup v2 file system.
  auto real = CgroupV2Slots::Detect(dir.Sub("seragen"));
  REQUIRE_FALSE(real.ok());
  CHECK(real.status().code() == StatusCode::kUnavailable);
  CHECK(real.status().message().find("cgroup v2") != std::string::npos);

  // The same layout as a delegated cgroup v2 directory.
  const std::string parent = dir.Sub("tree");
  REQUIRE(::mkdir(parent.c_str(), 0755) == 0);
  dir.Write("tree/cgroup.controllers", "cpu io\n");
  dir.Write("tree/cgroup.subtree_control", "");
  auto no_memory = CgroupV2Slots::DetectUnchecked(parent);
  REQUIRE_FALSE(no_memory.ok());
  CHECK(no_memory.status().message().find("memory controller") != std::string::npos);

  dir.Write("tree/cgroup.controllers", "cpu io memory pids\n");
  auto slots = CgroupV2Slots::DetectUnchecked(parent);
  REQUIRE(slots.ok());
  std::string control;
  REQUIRE(testing::RunShell("cat " + parent + "/cgroup.subtree_control", &control) == 0);
  CHECK(control == "+memory");
  // The kernel creates a cgroup's files; here the test does.
  REQUIRE(::mkdir((parent + "/slot-21401").c_str(), 0755) == 0);
  dir.Write("tree/slot-21401/memory.max", "");
  dir.Write("tree/slot-21401/memory.swap.max", "");
  auto procs = (*slots)->PrepareSlot(21401, 3ull << 30);
  REQUIRE(procs.ok());
  CHECK(*procs == parent + "/slot-21401/cgroup.procs");
  std::string max, swap;
  REQUIRE(testing::RunShell("cat " + parent + "/slot-21401/memory.max", &max) == 0);
  REQUIRE(testing::RunShell("cat " + parent + "/slot-21401/memory.swap.max", &swap) == 0);
  CHECK(max == std::to_string(3ull << 30));
  CHECK(swap == "0");
}

}  // namespace
}  // namespace seragen::sandbox

namespace seragen::sandbox {
namespace {

TEST_CASE("the program's parent is the reaper program, not a copy of the harness", "[sandbox][process]") {
  // A fork of the harness would carry the test binary's name; the reaper is
  // its own small program, started without copying the harness's memory.
  auto r = RunProcess(Shell("cat /proc/$PPID/comm; tr '\\0' ' ' < /proc/$PPID/environ | wc -c"));
  REQUIRE(r.ok());
  CHECK(r->head == "seragen-reaper\n0\n");  // and its own environment is empty
  // The test binary has no libexec beside it: the build tree's reaper.
  auto reaper = ReaperExecutable();
  REQUIRE(reaper.ok());
  CHECK(reaper->size() > 15);
  CHECK(reaper->substr(reaper->size() - 15) == "/seragen-reaper");
}

TEST_CASE("the installed reaper beside bin/seragen comes before the build tree's", "[sandbox][process]") {
  testing::TempDir dir;
  dir.Write("prefix/bin/seragen", "");
  dir.Write("prefix/libexec/seragen/seragen-reaper", "");
  dir.Write("build/seragen-reaper", "");
  const std::string installed = dir.Sub("prefix/bin/../libexec/seragen/seragen-reaper");
  const std::string built = dir.Sub("build/seragen-reaper");
  auto none = FindReaper(dir.Sub("prefix/bin/seragen"), built);  // neither is executable yet
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().code() == StatusCode::kNotFound);
  CHECK(none.status().message().find(installed) != std::string::npos);
  CHECK(none.status().message().find(built) != std::string::npos);
  ::chmod(built.c_str(), 0755);
  CHECK(*FindReaper(dir.Sub("prefix/bin/seragen"), built) == built);
  ::chmod(installed.c_str(), 0755);
  CHECK(*FindReaper(dir.Sub("prefix/bin/seragen"), built) == installed);
  CHECK(*FindReaper("", built) == built);
}

TEST_CASE("the reaper's settings survive encoding, and malformed ones are refused", "[sandbox][process]") {
  ReaperSpec spec;
  spec.executable = "/bin/sh";
  spec.argv = {"sh", "-c", std::string("a\0b", 3)};
  spec.env = {"A=1", ""};
  spec.cwd = "/tmp";
  spec.limits = ResourceLimits{7, 300, 12, 9};
  spec.credentials = std::make_pair(uid_t{21400}, gid_t{21401});
  spec.groups = {5, 6};
  spec.cgroup_procs = "/sys/fs/cgroup/x/cgroup.procs";
  const std::string bytes = EncodeReaperSpec(spec);
  auto back = DecodeReaperSpec(bytes);
  REQUIRE(back.has_value());
  CHECK(back->executable == spec.executable);
  CHECK(back->argv == spec.argv);
  CHECK(back->env == spec.env);
  CHECK(back->cwd == spec.cwd);
  REQUIRE(back->limits.has_value());
  CHECK(back->limits->cpu_seconds == 7);
  CHECK(back->limits->memory_mb == 300);
  CHECK(back->limits->max_processes == 12);
  CHECK(back->limits->max_file_mb == 9);
  CHECK(back->credentials == spec.credentials);
  CHECK(back->groups == spec.groups);
  CHECK(back->cgroup_procs == spec.cgroup_procs);

  for (std::size_t cut = 0; cut < bytes.size(); ++cut) CHECK_FALSE(DecodeReaperSpec(bytes.substr(0, cut)));
  CHECK_FALSE(DecodeReaperSpec(bytes + "x"));
  std::string huge_count = bytes;
  huge_count[7] = '\x7f';  // the executable name's length, now past any input
  CHECK_FALSE(DecodeReaperSpec(huge_count));
  ReaperSpec no_argv = spec;
  no_argv.argv.clear();
  CHECK_FALSE(DecodeReaperSpec(EncodeReaperSpec(no_argv)));

  ReaperSpec plain;
  plain.executable = "/bin/true";
  plain.argv = {"true"};
  auto none = DecodeReaperSpec(EncodeReaperSpec(plain));
  REQUIRE(none.has_value());
  CHECK_FALSE(none->limits.has_value());
  CHECK_FALSE(none->credentials.has_value());
}

}  // namespace
}  // namespace seragen::sandbox
