#include "seragen/sandbox/bwrap_args.h"

#include <catch2/catch.hpp>

#include <algorithm>

#include <sys/stat.h>
#include <unistd.h>

#include "testing/temp_dir.h"

namespace seragen::sandbox {
namespace {

using Kind = RootfsEntry::Kind;

TEST_CASE("bwrap argv is exactly the documented confinement", "[sandbox][bwrap_args]") {
  SandboxOptions o;
  o.uid = 20003;
  o.gid = 20003;
  o.env = {{"HOME", "/tmp"}, {"PATH", "/usr/bin:/bin"}};
  o.extra_ro_binds = {"/src/project/.git/objects"};
  o.hidden_paths = {"/work/runs"};
  o.tmp_size_mb = 64;
  std::vector<RootfsEntry> rootfs = {
      {"bin", Kind::kSymlink, "usr/bin"},   {"dev", Kind::kDirectory, ""},  {"etc", Kind::kDirectory, ""},
      {"lost+found", Kind::kDirectory, ""}, {"proc", Kind::kDirectory, ""}, {"repo", Kind::kDirectory, ""},
      {"run", Kind::kDirectory, ""},        {"tmp", Kind::kDirectory, ""},  {"usr", Kind::kDirectory, ""},
      {"version.txt", Kind::kFile, ""},
  };
  auto argv = BuildBwrapArgv(o, rootfs, "/pool/copy-1", "", {"/bin/bash", "-c", "ls"});
  std::vector<std::string> expected = {"bwrap",
                                       "--unshare-user",
                                       "--uid",
                                       "20003",
                                       "--gid",
                                       "20003",
                                       "--disable-userns",
                                       "--cap-drop",
                                       "ALL",
                                       "--unshare-net",
                                       "--unshare-pid",
                                       "--unshare-ipc",
                                       "--unshare-uts",
                                       "--unshare-cgroup-try",
                                       "--hostname",
                                       "sandbox",
                                       "--die-with-parent",
                                       "--new-session",
                                       "--clearenv",
                                       "--setenv",
                                       "HOME",
                                       "/tmp",
                                       "--setenv",
                                       "PATH",
                                       "/usr/bin:/bin",
                                       "--tmpfs",
                                       "/",
                                       "--symlink",
                                       "usr/bin",
                                       "/bin",
                                       "--ro-bind",
                                       "/etc",
                                       "/etc",
                                       "--ro-bind",
                                       "/usr",
                                       "/usr",
                                       "--ro-bind",
                                       "/version.txt",
                                       "/version.txt",
                                       "--dev",
                                       "/dev",
                                       "--size",
                                       "67108864",
                                       "--tmpfs",
                                       "/dev/shm",
                                       "--proc",
                                       "/proc",
                                       "--size",
                                       "67108864",
                                       "--tmpfs",
                                       "/tmp",
                                       "--size",
                                       "67108864",
                                       "--tmpfs",
                                       "/run",
                                       "--tmpfs",
                                       "/work/runs",
                                       "--ro-bind",
                                       "/src/project/.git/objects",
                                       "/src/project/.git/objects",
                                       "--bind",
                                       "/pool/copy-1",
                                       "/repo",
                                       "--remount-ro",
                                       "/",
                                       "--chdir",
                                       "/repo",
                                       "/bin/bash",
                                       "-c",
                                       "ls"};
  CHECK(argv == expected);
}

TEST_CASE("the invocation passes every option through the args fd", "[sandbox][bwrap_args]") {
  SandboxOptions o;
  o.hidden_paths = {"/work/runs"};
  std::vector<RootfsEntry> rootfs = {{"usr", Kind::kDirectory, ""}};
  const std::vector<std::string> command = {"/bin/bash", "-c", "ls"};
  auto full = BuildBwrapArgv(o, rootfs, "/pool/copy-1", "", command);
  auto inv = BuildBwrapInvocation(o, rootfs, "/pool/copy-1", "", command, 4);
  CHECK(inv.argv == std::vector<std::string>{"bwrap", "--args", "4", "/bin/bash", "-c", "ls"});
  std::string expected;
  for (std::size_t i = 1; i < full.size() - command.size(); ++i) {
    expected += full[i];
    expected.push_back('\0');
  }
  CHECK(inv.args_data == expected);
  CHECK(inv.args_data.find("/pool/copy-1") != std::string::npos);
  for (const auto& a : inv.argv) CHECK(a.find("/pool") == std::string::npos);
}

TEST_CASE("a configured rootfs is bound from its own directory", "[sandbox][bwrap_args]") {
  SandboxOptions o;
  o.rootfs = "/images/py311";
  o.mount_point = "/workspace";
  auto argv = BuildBwrapArgv(o, {{"usr", Kind::kDirectory, ""}}, "/c", "/workspace/sub", {"true"});
  auto has_seq = [&](std::vector<std::string> seq) {
    return std::search(argv.begin(), argv.end(), seq.begin(), seq.end()) != argv.end();
  };
  CHECK(has_seq({"--ro-bind", "/images/py311/usr", "/usr"}));
  CHECK(has_seq({"--bind", "/c", "/workspace"}));
  CHECK(has_seq({"--chdir", "/workspace/sub", "true"}));
  // Default environment when none is configured.
  CHECK(has_seq({"--setenv", "HOME", "/tmp"}));
  CHECK(has_seq({"--setenv", "LANG", "C.UTF-8"}));
}

TEST_CASE("a rollout's /tmp is its lease's host directory, bound instead of a tmpfs", "[sandbox][bwrap_args]") {
  SandboxOptions o;
  o.host_tmp = "/pool/copy-0.tmp";
  auto argv = BuildBwrapArgv(o, {{"usr", Kind::kDirectory, ""}}, "/c", "", {"true"});
  auto has_seq = [&](std::vector<std::string> seq) {
    return std::search(argv.begin(), argv.end(), seq.begin(), seq.end()) != argv.end();
  };
  CHECK(has_seq({"--proc", "/proc", "--bind", "/pool/copy-0.tmp", "/tmp", "--size"}));
  CHECK_FALSE(has_seq({"--tmpfs", "/tmp"}));
  CHECK(has_seq({"--tmpfs", "/run"}));
  o.host_tmp = "relative/tmp";
  CHECK_THAT(ValidateSandboxOptions(o).message(), Catch::Contains("relative/tmp"));
}

TEST_CASE("environment binds and setup network reach the argv", "[sandbox][bwrap_args]") {
  SandboxOptions o;
  o.binds = {{"/cache/env-abc", "/env", false}};
  std::vector<RootfsEntry> rootfs = {{"usr", Kind::kDirectory, ""}};
  auto argv = BuildBwrapArgv(o, rootfs, "/pool/copy-1", "", {"true"});
  auto at = std::find(argv.begin(), argv.end(), "/cache/env-abc");
  REQUIRE(at != argv.end());
  CHECK(*(at - 1) == "--ro-bind");
  CHECK(*(at + 1) == "/env");
  CHECK(std::find(argv.begin(), argv.end(), "--unshare-net") != argv.end());
  o.binds[0].writable = true;
  o.share_network = true;
  argv = BuildBwrapArgv(o, rootfs, "/pool/copy-1", "", {"true"});
  at = std::find(argv.begin(), argv.end(), "/cache/env-abc");
  CHECK(*(at - 1) == "--bind");
  CHECK(std::find(argv.begin(), argv.end(), "--unshare-net") == argv.end());
  o.binds[0].inside = "env";
  CHECK(!ValidateSandboxOptions(o).ok());
}

TEST_CASE("ScanRootfs lists entries sorted with symlink targets", "[sandbox][bwrap_args]") {
  testing::TempDir dir;
  ::mkdir(dir.Sub("usr").c_str(), 0755);
  dir.Write("file.txt", "x");
  REQUIRE(::symlink("usr/bin", dir.Sub("bin").c_str()) == 0);
  auto entries = ScanRootfs(dir.path());
  REQUIRE(entries.ok());
  std::vector<RootfsEntry> expected = {
      {"bin", Kind::kSymlink, "usr/bin"}, {"file.txt", Kind::kFile, ""}, {"usr", Kind::kDirectory, ""}};
  CHECK(*entries == expected);
  auto missing = ScanRootfs(dir.Sub("nope"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == StatusCode::kNotFound);
  CHECK(missing.status().message().find(dir.Sub("nope")) != std::string::npos);
}

TEST_CASE("host paths are fitted to an image root", "[sandbox][bwrap_args]") {
  testing::TempDir dir;
  ::mkdir(dir.Sub("home").c_str(), 0755);
  ::mkdir(dir.Sub("srv").c_str(), 0755);
  ::mkdir(dir.Sub("srv/data").c_str(), 0755);
  ::mkdir(dir.Sub("tmp").c_str(), 0755);
  auto entries = ScanRootfs(dir.path());
  REQUIRE(entries.ok());
  SandboxOptions o;
  o.rootfs = dir.path();
  o.hidden_paths = {"/work/run", "/srv/data", "/tmp/run"};
  o.extra_ro_binds = {"/work/repo/.git/objects", "/tmp/x/.git/objects", "/srv/data"};
  REQUIRE(FitPathsToRootfs(o, *entries).ok());
  CHECK(o.hidden_paths == std::vector<std::string>{"/srv/data"});  // only what the image has can be seen
  CHECK(o.extra_ro_binds.size() == 3);

  o.extra_ro_binds = {"/home/user/repo/.git/objects"};
  Status st = FitPathsToRootfs(o, *entries);
  CHECK(st.code() == StatusCode::kFailedPrecondition);
  CHECK(st.message().find("/home/user/repo/.git/objects") != std::string::npos);
  CHECK(st.message().find("outside /home") != std::string::npos);

  SandboxOptions host;
  host.hidden_paths = {"/nonexistent/run"};
  host.extra_ro_binds = {"/home/user/repo/.git/objects"};
  REQUIRE(FitPathsToRootfs(host, *entries).ok());
  CHECK(host.hidden_paths.size() == 1);
}

TEST_CASE("invalid sandbox options are named", "[sandbox][bwrap_args]") {
  SandboxOptions o;
  CHECK(ValidateSandboxOptions(o).ok());
  auto message_of = [](SandboxOptions bad) { return ValidateSandboxOptions(bad).message(); };
  SandboxOptions a = o;
  a.mount_point = "repo";
  CHECK(message_of(a).find("mount_point") != std::string::npos);
  SandboxOptions b = o;
  b.mount_point = "/a/b";
  CHECK(message_of(b).find("mount_point") != std::string::npos);
  SandboxOptions c = o;
  c.mount_point = "/usr";
  CHECK(message_of(c).find("system directory") != std::string::npos);
  SandboxOptions d = o;
  d.uid = 0;
  CHECK(message_of(d).find("must not be 0") != std::string::npos);
  SandboxOptions e = o;
  e.extra_ro_binds = {"relative/objects"};
  CHECK(message_of(e).find("extra_ro_binds") != std::string::npos);
  SandboxOptions f = o;
  f.limits.timeout = std::chrono::milliseconds(0);
  CHECK(message_of(f).find("timeout") != std::string::npos);
  SandboxOptions g = o;
  g.rootfs = "images/x";
  CHECK(message_of(g).find("rootfs") != std::string::npos);
}

TEST_CASE("slot uids are distinct per slot", "[sandbox][bwrap_args]") {
  CHECK(SandboxUidForSlot(20000, 0) == 20000);
  CHECK(SandboxUidForSlot(20000, 7) == 20007);
  CHECK(SandboxUidForSlot(20000, -1) == 20000);
}

}  // namespace

TEST_CASE("python bytecode is cached under the rollout's /tmp, never in the working copy", "[sandbox][bwrap_args]") {
  auto env = DefaultSandboxEnv();
  CHECK(env.count("PYTHONDONTWRITEBYTECODE") == 0);  // that recompiled every import of every command
  REQUIRE(env.count("PYTHONPYCACHEPREFIX") == 1);
  CHECK(env["PYTHONPYCACHEPREFIX"].rfind("/tmp/", 0) == 0);
}

}  // namespace seragen::sandbox
