// Prints the cost of one sandboxed command: a fresh bwrap sandbox per
// command (what BwrapRunner does), the same with shell-state carry-over, an
// unsandboxed `bash -c` baseline, and a persistent bwrap'd shell fed over a
// pipe (the alternative design) for comparison. Needs root and bubblewrap.
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "seragen/sandbox/bwrap_args.h"
#include "seragen/sandbox/bwrap_runner.h"
#include "seragen/sandbox/process.h"
#include "seragen/sandbox/self_check.h"

using namespace seragen;
using namespace seragen::sandbox;
using Clock = std::chrono::steady_clock;

namespace {

double MsPer(Clock::time_point start, int n) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count() / n;
}

// A bwrap'd bash that reads commands on stdin and answers each with a
// sentinel line: the persistent-shell design, measured for comparison.
double PersistentShellMs(const SandboxOptions& options, const std::string& copy, int n) {
  auto rootfs = ScanRootView("");
  if (!rootfs.ok()) return -1;
  auto argv = BuildBwrapArgv(options, *rootfs, copy, "", {"/bin/bash", "--norc", "--noprofile"});
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  auto exe = FindExecutable("bwrap", "/usr/bin:/bin");
  if (!exe.ok()) return -1;
  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(to_child[0], 0);
    ::dup2(from_child[1], 1);
    ::dup2(from_child[1], 2);
    ::setgroups(0, nullptr);
    if (::setgid(options.gid) != 0 || ::setuid(options.uid) != 0) ::_exit(126);
    char* envp[] = {const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
    ::execve(exe->c_str(), cargv.data(), envp);
    ::_exit(127);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  auto run_one = [&](int i) {
    std::string marker = "__done_" + std::to_string(i) + "__";
    std::string line = "true; echo " + marker + "\n";
    if (::write(to_child[1], line.data(), line.size()) < 0) return false;
    std::string got;
    char buf[4096];
    while (got.find(marker) == std::string::npos) {
      ssize_t r = ::read(from_child[0], buf, sizeof buf);
      if (r <= 0) return false;
      got.append(buf, static_cast<std::size_t>(r));
    }
    return true;
  };
  run_one(-1);  // start-up
  auto start = Clock::now();
  for (int i = 0; i < n; ++i) {
    if (!run_one(i)) return -1;
  }
  double ms = MsPer(start, n);
  ::close(to_child[1]);
  ::close(from_child[0]);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  if (::geteuid() != 0) {
    std::fprintf(stderr, "bench_sandbox: run as root (the sandbox switches to a slot uid)\n");
    return 1;
  }
  SandboxOptions options;
  options.uid = options.gid = 21900;
  Status check = SelfCheck(options);
  if (!check.ok()) {
    std::fprintf(stderr, "bench_sandbox: %s\n", check.ToString().c_str());
    return 1;
  }
  char pattern[] = "/tmp/seragen-bench-XXXXXX";
  std::string copy = ::mkdtemp(pattern);
  ::chmod(copy.c_str(), 0755);
  if (!PrepareWorkingCopy(copy, options.uid, options.gid).ok()) return 1;
  auto runner = BwrapRunner::Create(options, copy);
  if (!runner.ok()) return 1;
  RunLimits limits = options.limits;

  // Baseline: bash -c true without a sandbox (same spawn code).
  ProcessSpec plain;
  plain.executable = "/bin/bash";
  plain.argv = {"bash", "-c", "true"};
  plain.env = {"PATH=/usr/bin:/bin"};
  plain.cwd = copy;
  plain.credentials = std::make_pair(options.uid, options.gid);
  auto start = Clock::now();
  for (int i = 0; i < n; ++i) (void)RunProcess(plain);
  const double bare_ms = MsPer(start, n);

  // Reference: the smallest useful bwrap call (user ns, whole root read-only).
  ProcessSpec minimal = plain;
  minimal.executable = FindExecutable("bwrap", "/usr/bin:/bin").value_or("/usr/bin/bwrap");
  minimal.argv = {"bwrap", "--unshare-user", "--ro-bind", "/", "/", "/bin/bash", "-c", "true"};
  start = Clock::now();
  for (int i = 0; i < n; ++i) (void)RunProcess(minimal);
  const double minimal_ms = MsPer(start, n);

  start = Clock::now();
  for (int i = 0; i < n; ++i) (void)(*runner)->Run("true", limits);
  const double fresh_ms = MsPer(start, n);

  CommandRequest stateful("true");
  stateful.capture_state = true;
  start = Clock::now();
  for (int i = 0; i < n; ++i) {
    auto r = (*runner)->Run(stateful, limits);
    if (r.ok()) stateful.state = r->final_state;
  }
  const double state_ms = MsPer(start, n);

  const double persistent_ms = PersistentShellMs(options, copy, n);

  std::printf("sandbox bench, %d commands each (`true`):\n", n);
  std::printf("  bash -c, no sandbox (baseline)          %7.3f ms/command\n", bare_ms);
  std::printf("  minimal bwrap (--ro-bind / /) reference %7.3f ms/command  (%.1fx baseline)\n", minimal_ms,
              minimal_ms / bare_ms);
  std::printf("  fresh bwrap sandbox per command         %7.3f ms/command  (%.1fx baseline, %.2fx minimal bwrap)\n",
              fresh_ms, fresh_ms / bare_ms, fresh_ms / minimal_ms);
  std::printf("  fresh sandbox + cwd/env carry-over      %7.3f ms/command  (%.1fx baseline)\n", state_ms,
              state_ms / bare_ms);
  std::printf("  persistent bwrap'd shell over a pipe    %7.3f ms/command  (%.2fx baseline)\n", persistent_ms,
              persistent_ms / bare_ms);
  std::error_code ec;
  std::filesystem::remove_all(copy, ec);
  return 0;
}
