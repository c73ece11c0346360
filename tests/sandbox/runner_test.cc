#include <catch2/catch.hpp>

#include <filesystem>

#include "sandbox/sandbox_test_util.h"
#include "seragen/base/log.h"
#include "seragen/sandbox/runner_factory.h"
#include "seragen/sandbox/unconfined_runner.h"

namespace seragen::sandbox {
namespace {

using test::SandboxFixture;
using test::SmallOptions;

// Runs `command` in the shell state `state` (none: a fresh shell) and reports
// the state it leaves; REQUIREs that the run succeeded.
CommandResult RunCapturing(SandboxFixture& f, const std::string& command,
                           const std::optional<ShellState>& state = std::nullopt) {
  CommandRequest request(command);
  request.state = state;
  request.capture_state = true;
  auto r = f.runner->Run(request, f.options.limits);
  REQUIRE(r.ok());
  return std::move(r).value();
}

// Makes `dir` readable by the sandbox uid and writes `file` into it, also
// readable.
void WriteReadable(const testing::TempDir& dir, const std::string& file, const std::string& content) {
  ::chmod(dir.path().c_str(), 0755);
  dir.Write(file, content);
  ::chmod(dir.Sub(file).c_str(), 0644);
}

TEST_CASE("bwrap runner: cwd and exported variables carry over between commands", "[runner]") {
  SandboxFixture f(21101);
  CommandResult r1 = RunCapturing(f, "mkdir -p sub/dir && cd sub && export GREETING='hi there'");
  REQUIRE(r1.final_state);
  CHECK(r1.final_state->cwd == "/repo/sub");

  CommandResult r2 = RunCapturing(f, "pwd; echo \"$GREETING\"", r1.final_state);
  CHECK(r2.output == "/repo/sub\nhi there\n");

  // A directory that disappeared falls back to the copy's root.
  std::filesystem::remove_all(f.copy + "/sub");
  CommandRequest third("pwd");
  third.state = r2.final_state;
  auto r3 = f.runner->Run(third, f.options.limits);
  REQUIRE(r3.ok());
  CHECK(r3->output == "/repo\n");
}

TEST_CASE("bwrap runner: a huge exported variable does not break later commands", "[runner]") {
  SandboxFixture f(21105);
  CommandResult r1 = RunCapturing(f, "export BIG=$(head -c 200000 /dev/zero | tr '\\0' a); export KEEP=yes; echo set");
  CHECK(r1.output == "set\n");
  REQUIRE(r1.final_state);
  CHECK(r1.final_state->dropped_exports == "BIG");

  // Before the bound, this command could not even start (E2BIG), an
  // "infrastructure" failure caused by the agent.
  CommandResult r2 = RunCapturing(f, "echo \"${#BIG} $KEEP\"; /bin/true && echo exec-ok", r1.final_state);
  CHECK(r2.output == "0 yes\nexec-ok\n");
  REQUIRE(r2.final_state);
  CHECK(r2.final_state->dropped_exports.empty());
}

TEST_CASE("bwrap runner: a command that prints like bwrap is not a sandbox failure", "[runner]") {
  SandboxFixture f(21106);
  CHECK(RunCapturing(f, "echo 'bwrap: Can not mount tmpfs'; exit 1").exit_code == 1);
}

TEST_CASE("bwrap runner: no host path shows in the sandbox's process command lines", "[runner]") {
  testing::TempDir hidden;
  SandboxOptions o = SmallOptions(21107);
  o.hidden_paths = {hidden.path()};
  SandboxFixture f(21107, o);
  auto r = f.Run(
      "tr '\\0' ' ' < /proc/1/cmdline; echo; for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done; "
      "cat <&4 | wc -c");
  INFO(r.output);
  CHECK(r.output.rfind("bwrap --args 4 ", 0) == 0);
  CHECK(r.output.find(f.copy) == std::string::npos);
  CHECK(r.output.find(f.dir.path()) == std::string::npos);
  CHECK(r.output.find(hidden.path()) == std::string::npos);
  CHECK(r.output.find("--bind") == std::string::npos);
  // The options pipe is drained: nothing left to read on fd 4.
  CHECK(r.output.size() >= 2);
  CHECK(r.output.substr(r.output.size() - 2) == "0\n");
}

TEST_CASE("bwrap runner: files created inside belong to the slot uid on the host", "[runner]") {
  SandboxFixture f(21102);
  auto r = f.Run("echo data > made.txt && id -u && pwd");
  CHECK(r.output == "21102\n/repo\n");
  struct stat st;
  REQUIRE(::stat((f.copy + "/made.txt").c_str(), &st) == 0);
  CHECK(st.st_uid == 21102u);
  CHECK(f.runner->VisibleRoot() == "/repo");
  CHECK(f.runner->Kind() == "bwrap");
}

TEST_CASE("bwrap runner: a sandbox that cannot start is an infrastructure error", "[runner]") {
  SandboxOptions o = SmallOptions(21103);
  o.binds = {{"/nonexistent/seragen/objects", "/env", false}};
  SandboxFixture f(21103, o);
  auto r = f.runner->Run("true", f.options.limits);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::kUnavailable);
  CHECK(r.status().message().find("/nonexistent/seragen/objects") != std::string::npos);
}

TEST_CASE("bwrap runner: extra read-only binds are visible at the same path", "[runner]") {
  testing::TempDir objects;
  WriteReadable(objects, "pack.idx", "objects");
  SandboxOptions o = SmallOptions(21104);
  o.extra_ro_binds = {objects.path()};
  SandboxFixture f(21104, o);
  auto r = f.Run("cat " + objects.path() + "/pack.idx; touch " + objects.path() + "/w; echo rc=$?");
  CHECK(r.output.find("objects") == 0);
  CHECK(r.output.find("rc=1") != std::string::npos);
}

TEST_CASE("bwrap runner: git works in an alternates copy with the source objects bound", "[runner]") {
  testing::TempDir source;
  ::chmod(source.path().c_str(), 0755);
  source.Write("src/app.py", "print('hi')\n");
  REQUIRE(testing::RunShell("cd " + source.path() +
                            " && git init -q && git add -A && git -c user.name=t "
                            "-c user.email=t@t commit -qm base") == 0);
  SandboxOptions o = SmallOptions(21111);
  o.extra_ro_binds = {source.path() + "/.git/objects"};
  o.hidden_paths = {source.path()};  // the source tree itself stays invisible
  SandboxFixture f(21111, o);
  ::rmdir(f.copy.c_str());
  REQUIRE(testing::RunShell("git clone -q --shared " + source.path() + " " + f.copy) == 0);
  REQUIRE(PrepareWorkingCopy(f.copy, 21111, 21111).ok());
  auto r = f.Run(
      "echo x >> src/app.py && git status --short && git log --format=%s && "
      "ls -A " +
      source.path() + " | wc -l");
  CHECK(r.exit_code == 0);
  CHECK(r.output == " M src/app.py\nbase\n1\n");  // only .git is visible under the source
}

TEST_CASE("bwrap runner: hidden paths show up empty", "[runner]") {
  testing::TempDir pool;  // in the view (an extra bind), with another copy hidden inside
  ::chmod(pool.path().c_str(), 0755);
  WriteReadable(pool, "other/answer.txt", "P1");
  SandboxOptions o = SmallOptions(21105);
  o.extra_ro_binds = {pool.path()};
  o.hidden_paths = {pool.Sub("other")};
  SandboxFixture f(21105, o);
  auto r = f.Run("ls -A " + pool.Sub("other") + " | wc -l");
  CHECK(r.output == "0\n");
  // Hidden where nothing of the view is, it is left out (it would only create its parents).
  o.extra_ro_binds.clear();
  SandboxFixture g(21105, o);
  r = g.Run("ls -A " + pool.path() + " 2>&1 | wc -l; ls -d /tmp/*/ 2>/dev/null | wc -l");
  CHECK(r.output == "1\n0\n");
}

TEST_CASE("bwrap runner: the copy stays usable when its pool directory is hidden", "[runner]") {
  SandboxOptions o = SmallOptions(21110);
  SandboxFixture probe(21110, o);         // only to learn where its copy lives
  o.extra_ro_binds = {probe.dir.path()};  // a view that would show the pool: hiding wins
  o.hidden_paths = {probe.dir.path()};
  auto runner = BwrapRunner::Create(o, probe.copy);
  REQUIRE(runner.ok());
  probe.dir.Write("sibling-copy.txt", "other rollout");
  auto r = (*runner)->Run("echo hi > /repo/x && cat /repo/x && ls -A " + probe.dir.path() + " | wc -l", o.limits);
  REQUIRE(r.ok());
  CHECK(r->output == "hi\n0\n");
}

TEST_CASE("bwrap runner: refuses a missing working copy and a missing bwrap", "[runner]") {
  auto missing_copy = BwrapRunner::Create(SmallOptions(21106), "/nonexistent/copy");
  REQUIRE_FALSE(missing_copy.ok());
  CHECK(missing_copy.status().message().find("/nonexistent/copy") != std::string::npos);

  testing::TempDir dir;
  SandboxOptions o = SmallOptions(21106);
  o.bwrap_path = "/nonexistent/bwrap";
  auto missing_bwrap = BwrapRunner::Create(o, dir.path());
  REQUIRE_FALSE(missing_bwrap.ok());
  CHECK(missing_bwrap.status().code() == StatusCode::kFailedPrecondition);
  CHECK(missing_bwrap.status().message().find("bubblewrap") != std::string::npos);
  CHECK(missing_bwrap.status().message().find("sandbox: none") != std::string::npos);
}

// A `seragen run` started meanwhile skips leased uids, so it never kills a test's commands.
TEST_CASE("sandbox fixtures run as uids leased on the node like a run's slots", "[runner]") {
  {
    SandboxFixture f(21113);
    CHECK(testing::UidLeased(21113));
    SandboxFixture g(21113);  // the same uid twice in one process: one shared lease
    CHECK(g.Run("id -u").output == "21113\n");
  }
  CHECK_FALSE(testing::UidLeased(21113));
}

TEST_CASE("self-check passes here and names a missing bwrap", "[runner]") {
  const testing::LeasedUids leased(21107);
  SandboxOptions o = SmallOptions(21107);
  Status ok = SelfCheck(o);
  CHECK(ok.ok());
  INFO(ok.ToString());
  o.bwrap_path = "seragen-no-such-bwrap";
  Status bad = SelfCheck(o);
  CHECK(bad.code() == StatusCode::kFailedPrecondition);
  CHECK(bad.message().find("bubblewrap is not installed") != std::string::npos);
  o.uid = 0;
  CHECK(SelfCheck(o).message().find("must not be 0") != std::string::npos);
}

TEST_CASE("PrepareWorkingCopy chowns the tree and checks ancestors", "[runner]") {
  testing::TempDir dir;  // mode 0700: not searchable by the sandbox uid
  dir.Write("copy/a/b.txt", "x");
  Status closed = PrepareWorkingCopy(dir.Sub("copy"), 21108, 21108);
  CHECK(closed.code() == StatusCode::kPermissionDenied);
  CHECK(closed.message().find(dir.path()) != std::string::npos);

  ::chmod(dir.path().c_str(), 0711);
  REQUIRE(::symlink("/etc/passwd", dir.Sub("copy/link").c_str()) == 0);
  REQUIRE(PrepareWorkingCopy(dir.Sub("copy"), 21108, 21108).ok());
  struct stat st;
  REQUIRE(::stat(dir.Sub("copy/a/b.txt").c_str(), &st) == 0);
  CHECK(st.st_uid == 21108u);
  REQUIRE(::stat("/etc/passwd", &st) == 0);
  CHECK(st.st_uid == 0u);  // the symlink's target is untouched
}

TEST_CASE("unconfined runner warns once and still applies limits", "[runner]") {
  std::string captured;
  log::ScopedCapture capture(&captured);
  testing::TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const testing::LeasedUids leased(21109);
  REQUIRE(PrepareWorkingCopy(dir.path(), 21109, 21109).ok());
  auto runner = UnconfinedRunner::Create(SmallOptions(21109), dir.path());
  REQUIRE(runner.ok());
  auto again = UnconfinedRunner::Create(SmallOptions(21109), dir.path());
  REQUIRE(again.ok());
  CHECK((*runner)->VisibleRoot() == dir.path());
  CHECK((*runner)->Kind() == "none");

  RunLimits limits = SmallOptions(21109).limits;
  limits.timeout = std::chrono::milliseconds(500);
  auto r = (*runner)->Run("pwd; id -u; sleep 30", limits);
  REQUIRE(r.ok());
  CHECK(r->timed_out);
  CHECK(r->output == dir.path() + "\n21109\n");
  // The warning may already have been logged by an earlier test in this
  // process; when it is in the capture, it is there exactly once.
  auto first = captured.find("UNCONFINED");
  if (first != std::string::npos) CHECK(captured.find("UNCONFINED", first + 1) == std::string::npos);
  CHECK(UnconfinedWarningText().find("UNCONFINED") != std::string::npos);
}

TEST_CASE("the factory prepares the copy and builds the configured runner", "[runner]") {
  CHECK(*ParseSandboxMode("bwrap") == SandboxMode::kBwrap);
  CHECK(*ParseSandboxMode("none") == SandboxMode::kNone);
  auto bad = ParseSandboxMode("docker");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("\"docker\"") != std::string::npos);

  testing::TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  dir.Write("copy/a.txt", "a");
  const testing::LeasedUids leased(21112);
  auto runner = CreateRunner(SandboxMode::kBwrap, SmallOptions(21112), dir.Sub("copy"));
  REQUIRE(runner.ok());
  CHECK((*runner)->Kind() == "bwrap");
  auto r = (*runner)->Run("echo b >> a.txt && cat a.txt", SmallOptions(21112).limits);
  REQUIRE(r.ok());
  CHECK(r->output == "ab\n");  // the pre-existing file was handed to the slot uid
  auto none = CreateRunner(SandboxMode::kNone, SmallOptions(21112), dir.Sub("copy"));
  REQUIRE(none.ok());
  CHECK((*none)->Kind() == "none");
}

TEST_CASE("a copy already given to the slot is not walked again, but its ancestors are checked", "[runner]") {
  testing::TempDir dir;  // mode 0700: not searchable by the sandbox uid
  dir.Write("copy/a.txt", "a");
  auto closed = CreateRunner(SandboxMode::kBwrap, SmallOptions(21113), dir.Sub("copy"), CopyOwnership::kGiven);
  REQUIRE_FALSE(closed.ok());
  CHECK(closed.status().code() == StatusCode::kPermissionDenied);

  ::chmod(dir.path().c_str(), 0755);
  auto runner = CreateRunner(SandboxMode::kBwrap, SmallOptions(21113), dir.Sub("copy"), CopyOwnership::kGiven);
  REQUIRE(runner.ok());
  struct stat st;
  REQUIRE(::stat(dir.Sub("copy/a.txt").c_str(), &st) == 0);
  CHECK(st.st_uid == 0u);  // nothing below the copy was chowned
  auto missing = CreateRunner(SandboxMode::kBwrap, SmallOptions(21113), dir.Sub("gone"), CopyOwnership::kGiven);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == StatusCode::kNotFound);
}

}  // namespace
}  // namespace seragen::sandbox
