// Containment: each hostile command runs through a real bubblewrap sandbox;
// the host must be untouched and the next command must still work.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sandbox/sandbox_test_util.h"
#include "seragen/base/utf8_chars.h"

namespace seragen::sandbox {
namespace {

using test::CountProcessesOfUid;
using test::SandboxFixture;

// Each test case uses its own uid so parallel tests never share a process count.
void ExpectStillUsable(SandboxFixture& f) {
  auto r = f.Run("echo alive > /repo/alive.txt && cat /repo/alive.txt");
  CHECK(r.exit_code == 0);
  CHECK(r.output == "alive\n");
  CHECK(CountProcessesOfUid(f.options.uid) == 0);
}

TEST_CASE("writes outside the copy fail: absolute path, .., symlink", "[containment]") {
  SandboxFixture f(21001);
  // A host directory any uid could write to, outside the copy.
  std::string outside = f.dir.Sub("outside");
  std::filesystem::create_directory(outside);
  ::chmod(outside.c_str(), 0777);

  auto r = f.Run("echo x > " + outside +
                 "/abs.txt; echo x > /etc/seragen-probe; "
                 "touch /seragen-probe; touch /usr/seragen-probe; echo rc=$?");
  CHECK(r.output.find("rc=1") != std::string::npos);
  CHECK_FALSE(f.HostExists(outside + "/abs.txt"));
  CHECK_FALSE(f.HostExists("/etc/seragen-probe"));
  CHECK_FALSE(f.HostExists("/seragen-probe"));
  CHECK_FALSE(f.HostExists("/usr/seragen-probe"));

  r = f.Run("touch /repo/../dotdot.txt; touch ../dotdot2.txt; touch /repo/../../" + outside.substr(1) +
            "/dotdot3.txt; echo rc=$?");
  CHECK(r.output.find("rc=1") != std::string::npos);
  CHECK_FALSE(f.HostExists(f.dir.Sub("dotdot.txt")));
  CHECK_FALSE(f.HostExists(f.dir.Sub("dotdot2.txt")));
  CHECK_FALSE(f.HostExists(outside + "/dotdot3.txt"));

  r = f.Run("ln -s " + outside + " /repo/link && echo x > /repo/link/via-link.txt; echo rc=$?");
  CHECK(r.output.find("rc=1") != std::string::npos);
  CHECK(f.HostExists(f.copy + "/link"));  // the link itself is inside the copy
  CHECK_FALSE(f.HostExists(outside + "/via-link.txt"));
  ExpectStillUsable(f);
}

TEST_CASE("a root-only host file cannot be read", "[containment]") {
  testing::TempDir shown;  // shown read-only (sandbox.extra_ro_paths), the file in it root-only
  ::chmod(shown.path().c_str(), 0755);
  std::string secret = shown.Sub("secret.txt");
  shown.Write("secret.txt", "TOP-SECRET-VALUE\n");
  ::chmod(secret.c_str(), 0600);
  SandboxOptions o = test::SmallOptions(21002);
  o.extra_ro_binds = {shown.path()};
  SandboxFixture f(21002, o);
  auto r = f.Run("cat " + secret + "; cat /root/.bashrc >/dev/null; echo rc=$?");
  CHECK(r.output.find("TOP-SECRET-VALUE") == std::string::npos);
  CHECK(r.output.find("Permission denied") != std::string::npos);
  CHECK(r.output.find("rc=1") != std::string::npos);
  ExpectStillUsable(f);
}

TEST_CASE("remounting / read-write fails and nothing has capabilities", "[containment]") {
  SandboxFixture f(21003);
  auto r = f.Run(
      "mount -o remount,rw /; echo rc=$?; mount -o remount,rw,bind /usr; "
      "touch /usr/seragen-remount-probe; grep CapEff /proc/self/status; id -u");
  CHECK(r.output.find("rc=32") != std::string::npos);
  CHECK(r.output.find("CapEff:\t0000000000000000") != std::string::npos);
  CHECK(r.output.find("21003") != std::string::npos);
  CHECK_FALSE(f.HostExists("/usr/seragen-remount-probe"));
  ExpectStillUsable(f);
}

TEST_CASE("a TCP port listening on the host loopback is unreachable", "[containment]") {
  SandboxFixture f(21004);
  int server = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  REQUIRE(server >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  REQUIRE(::bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(server, 8) == 0);
  socklen_t len = sizeof addr;
  ::getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len);
  const std::string port = std::to_string(ntohs(addr.sin_port));

  auto r = f.Run("exec 3<>/dev/tcp/127.0.0.1/" + port +
                 " && echo CONNECTED; "
                 "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", " +
                 port + "), timeout=2); print(\"CONNECTED2\")'; echo done");
  CHECK(r.output.find("CONNECTED") == std::string::npos);
  CHECK(r.output.find("done") != std::string::npos);
  int client = ::accept(server, nullptr, nullptr);
  CHECK(client < 0);  // nobody connected
  ::close(server);
  // Only loopback exists inside.
  auto ifaces = f.Run("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
  CHECK(ifaces.output == "lo\n");
  ExpectStillUsable(f);
}

TEST_CASE("the process limit bounds forks and a fork bomb", "[containment]") {
  SandboxFixture f(21005);
  // Count how many children can exist at once.
  auto counted = f.Run(
      "python3 -c '\nimport os, time\nn = 0\ntry:\n    while n < 500:\n"
      "        if os.fork() == 0:\n            time.sleep(5); os._exit(0)\n        n += 1\n"
      "except OSError:\n    pass\nprint(n)'");
  REQUIRE(counted.exit_code == 0);
  int forks = std::stoi(counted.output);
  CHECK(forks > 5);
  CHECK(forks < f.options.limits.resources.max_processes);
  CHECK(CountProcessesOfUid(f.options.uid) == 0);

  RunLimits limits = f.options.limits;
  limits.timeout = std::chrono::seconds(3);
  auto bomb = f.runner->Run(":(){ :|:& };:", limits);
  REQUIRE(bomb.ok());
  CHECK(bomb->duration < std::chrono::seconds(8));
  ExpectStillUsable(f);
}

TEST_CASE("a memory hog is stopped by the address-space limit", "[containment]") {
  SandboxFixture f(21006);
  auto r = f.Run("python3 -c 'b = bytearray(2 << 30); print(\"ALLOCATED\")'; echo rc=$?");
  CHECK(r.output.find("ALLOCATED") == std::string::npos);
  CHECK(r.output.find("MemoryError") != std::string::npos);
  CHECK(r.output.find("rc=1") != std::string::npos);
  ExpectStillUsable(f);
}

TEST_CASE("a CPU hog is stopped by the CPU-time limit", "[containment]") {
  SandboxOptions o = test::SmallOptions(21015);
  o.limits.resources.cpu_seconds = 1;
  SandboxFixture f(21015, o);
  auto r = f.Run("python3 -c 'while True: pass'; echo rc=$?");
  CHECK(r.output.find("rc=152") != std::string::npos);  // SIGXCPU at the soft limit
  CHECK_FALSE(r.timed_out);
  CHECK(r.duration < std::chrono::seconds(8));
  ExpectStillUsable(f);
}

TEST_CASE("large files are stopped by the file-size limit", "[containment]") {
  SandboxFixture f(21007);
  auto r = f.Run("head -c 64M /dev/zero > /repo/big.bin; echo rc=$?");
  CHECK(r.output.find("rc=153") != std::string::npos);  // SIGXFSZ
  CHECK(std::filesystem::file_size(f.copy + "/big.bin") == 16u * 1024 * 1024);
  ExpectStillUsable(f);
}

TEST_CASE("1 GB of output is capped, never buffered, and stated", "[containment]") {
  SandboxFixture f(21008);
  auto r = f.Run("head -c 1000000000 /dev/zero | tr '\\0' y");
  CHECK(r.output_limit_killed);
  CHECK(Utf8CharCount(r.output) + Utf8CharCount(r.output_tail) <= f.options.limits.output_cap_chars);
  CHECK(r.truncated());
  CHECK(r.total_output_bytes >= f.options.limits.output_kill_bytes);
  CHECK(r.total_output_bytes < 1000000000u);
  CHECK(r.duration < std::chrono::seconds(8));
  ExpectStillUsable(f);
}

TEST_CASE("output below the kill threshold is drained to the end", "[containment]") {
  SandboxFixture f(21009);
  auto r = f.Run("head -c 20000000 /dev/zero | tr '\\0' y; echo; echo THE-END");
  CHECK_FALSE(r.output_limit_killed);
  CHECK(r.exit_code == 0);
  CHECK(r.total_output_bytes == 20000009u);
  CHECK(r.output_tail.find("THE-END") != std::string::npos);
  CHECK(r.omitted_bytes == r.total_output_bytes - r.output.size() - r.output_tail.size());
}

TEST_CASE("sleep past the timeout is killed with its whole tree", "[containment]") {
  SandboxFixture f(21010);
  RunLimits limits = f.options.limits;
  limits.timeout = std::chrono::milliseconds(800);
  auto r = f.runner->Run("echo before; sleep 60 & sleep 60; echo after", limits);
  REQUIRE(r.ok());
  CHECK(r->timed_out);
  CHECK(r->output == "before\n");
  CHECK(r->duration < std::chrono::seconds(5));
  ExpectStillUsable(f);
}

TEST_CASE("background processes do not outlive the command", "[containment]") {
  SandboxFixture f(21011);
  auto r = f.Run(
      "sleep 60 & nohup sleep 61 >/dev/null 2>&1 & setsid sleep 62 & "
      "(sleep 63 &) ; disown -a; echo launched");
  CHECK(r.exit_code == 0);
  CHECK(r.output == "launched\n");
  CHECK(r.duration < std::chrono::seconds(5));
  CHECK(CountProcessesOfUid(f.options.uid) == 0);
  auto ps = f.Run("ps -e -o comm= | grep -c sleep");
  CHECK(ps.output == "0\n");
  ExpectStillUsable(f);
}

TEST_CASE("unshare inside the sandbox is refused", "[containment]") {
  SandboxFixture f(21012);
  auto r = f.Run(
      "unshare -Ur id; echo rc1=$?; unshare -n true; echo rc2=$?; "
      "unshare -m true; echo rc3=$?");
  CHECK(r.output.find("rc1=0") == std::string::npos);
  CHECK(r.output.find("rc2=0") == std::string::npos);
  CHECK(r.output.find("rc3=0") == std::string::npos);
  ExpectStillUsable(f);
}

TEST_CASE("setuid binaries grant nothing", "[containment]") {
  SandboxFixture f(21013);
  // A setuid-root copy of `id` inside the working copy, and the host's su.
  std::filesystem::copy_file("/usr/bin/id", f.copy + "/suid-id");
  ::chown((f.copy + "/suid-id").c_str(), 0, 0);
  ::chmod((f.copy + "/suid-id").c_str(), 04755);
  auto r = f.Run(
      "/repo/suid-id -u; su -c 'touch /root/seragen-su-probe' root </dev/null; "
      "echo rc=$?; grep NoNewPrivs /proc/self/status");
  CHECK(r.output.rfind("21013\n", 0) == 0);
  CHECK(r.output.find("rc=0") == std::string::npos);
  CHECK(r.output.find("NoNewPrivs:\t1") != std::string::npos);
  CHECK_FALSE(f.HostExists("/root/seragen-su-probe"));
  ExpectStillUsable(f);
}

TEST_CASE("the environment is cleared and /tmp is private", "[containment]") {
  ::setenv("SERAGEN_SECRET_PROBE", "do-not-leak", 1);
  SandboxFixture f(21014);
  testing::TempDir host_tmp_file_dir;  // lives in the host's /tmp
  auto r = f.Run(
      "env; ls /tmp | wc -l; echo tmpdata > /tmp/seragen-probe-21014 && cat /tmp/seragen-probe-21014; hostname; "
      "(for i in 1 2 3 4 5 6 7 8; do head -c 15M /dev/zero > /dev/shm/f$i; done) 2>/dev/null; "
      "echo shm=$(du -sm /dev/shm | cut -f1)");
  INFO(r.output);
  CHECK(r.output.find("do-not-leak") == std::string::npos);
  CHECK(r.output.find("HOME=/tmp") != std::string::npos);
  CHECK(r.output.find("\n0\ntmpdata\nsandbox\n") != std::string::npos);
  CHECK(r.output.find("shm=64\n") != std::string::npos);  // /dev/shm is a 64 MiB tmpfs
  CHECK_FALSE(f.HostExists("/tmp/seragen-probe-21014"));  // a name no one else uses on the host
}

namespace {

// A fresh world-readable directory under `top` with canary.txt; removed at the end.
struct WorldReadable {
  std::string dir;
  explicit WorldReadable(const std::string& top) {
    std::filesystem::create_directories(top);
    std::string tmpl = top + "/seragen-view-XXXXXX";
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
    ::chmod(dir.c_str(), 0755);
    std::ofstream(dir + "/canary.txt") << "view-canary\n";
    ::chmod((dir + "/canary.txt").c_str(), 0644);
  }
  ~WorldReadable() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

}  // namespace

TEST_CASE("the sandbox shows the system directories, the copy and /tmp, nothing else of the host", "[containment]") {
  WorldReadable home("/home"), srv("/srv"), opt("/opt"), var("/var/tmp");
  SandboxFixture f(21120);
  auto r = f.Run("ls -A /; echo ---; cat " + home.dir + "/canary.txt " + srv.dir + "/canary.txt " + opt.dir +
                 "/canary.txt " + var.dir +
                 "/canary.txt 2>&1; ls /sys /mnt /root 2>&1 | wc -l; "
                 "head -c 100 /etc/shadow 2>&1; stat -c %F /etc/shadow; ls -A /etc/ssh | wc -l");
  INFO(r.output);
  const std::string listing = r.output.substr(0, r.output.find("---"));
  std::istringstream names(listing);
  for (std::string name; std::getline(names, name);) {
    INFO(name);
    const bool allowed = name == "repo" || name == "dev" || name == "proc" || name == "tmp" || name == "run" ||
                         std::find(HostSystemDirs().begin(), HostSystemDirs().end(), name) != HostSystemDirs().end();
    CHECK(allowed);
  }
  CHECK(r.output.find("view-canary") == std::string::npos);
  CHECK(r.output.find(home.dir + "/canary.txt: No such file or directory") != std::string::npos);
  struct stat st;
  if (::stat("/etc/shadow", &st) == 0) {  // covered by /dev/null on a nodev mount: nothing to open
    CHECK(r.output.find("'/etc/shadow' for reading: Permission denied\ncharacter special file\n0\n") !=
          std::string::npos);  // and no ssh keys
  }
  // The toolchain still works.
  r = f.Run("python3 -c 'print(6*7)' && git --version >/dev/null && ls /usr/bin/env >/dev/null && echo tools-ok");
  INFO(r.output);
  CHECK(r.output.find("42\ntools-ok") != std::string::npos);
  ExpectStillUsable(f);
}

TEST_CASE("sandbox.extra_ro_paths widens the view read-only, and a missing one is named", "[containment]") {
  WorldReadable srv("/srv");
  SandboxOptions o = test::SmallOptions(21121);
  o.extra_ro_binds = {srv.dir};
  SandboxFixture f(21121, o);
  auto r = f.Run("cat " + srv.dir + "/canary.txt; touch " + srv.dir + "/new 2>&1; ls /srv | wc -l");
  INFO(r.output);
  CHECK(r.output.find("view-canary\n") != std::string::npos);
  CHECK(r.output.find("Read-only file system") != std::string::npos);
  CHECK(r.output.find("\n1\n") != std::string::npos);  // only the listed directory of /srv
  o.extra_ro_binds = {srv.dir + "/missing"};
  auto missing = BwrapRunner::Create(o, f.copy);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find(srv.dir + "/missing") != std::string::npos);
}

}  // namespace
}  // namespace seragen::sandbox
