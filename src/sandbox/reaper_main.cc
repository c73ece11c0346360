// seragen-reaper: the process that stays behind a sandboxed program until it
// ends (installed as libexec/seragen/seragen-reaper; RunProcess starts it).
//
// Started by posix_spawn from the harness, so starting a command never
// copies the harness's address space (a fork of the large, multi-threaded
// harness made every page it wrote while a command ran a copy-on-write
// fault). Descriptors as started (reaper_spec.h): 0 /dev/null, 1 and 2 the
// output pipe, 3 the side channel (or closed), 4 the fd 4 input (or closed),
// 5 the start report, 6 the lifeline, 7 the encoded ReaperSpec. Its own
// environment is empty; the program's comes from the spec.
//
// It sets the limits, joins the cgroup, switches uid, enters the directory,
// forks the program into its own process group and reaps it and every
// orphan re-parented here. It does not rely on a parent-death signal for
// itself (that signal follows the forking *thread* of the harness and is
// lost when the harness dies before it is armed); it watches the lifeline,
// whose only write end lives in the harness: when the harness dies
// (however), the pipe hangs up and the reaper kills the program's group and,
// when it runs as the slot uid, every process of that uid (kill(-1) as that
// uid), including processes a namespace setup left outside the group. Its
// exit status is the program's (re-raising the program's signal).
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "seragen/sandbox/reaper_spec.h"

namespace {

using seragen::sandbox::ReaperSpec;
namespace sb = seragen::sandbox;

[[noreturn]] void Fail(int stage) {
  int payload[2] = {stage, errno};
  ssize_t ignored = ::write(sb::kReaperErrFd, payload, sizeof payload);
  (void)ignored;
  ::_exit(127);
}

void SetLimit(int resource, rlim_t soft, rlim_t hard) {
  struct rlimit rl;
  rl.rlim_cur = soft;
  rl.rlim_max = hard;
  ::setrlimit(resource, &rl);
}

// Reads the spec from its descriptor to EOF and closes it.
ReaperSpec ReadSpec() {
  std::string bytes;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(sb::kReaperSpecFd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Fail(sb::kStageSpec);
    if (n == 0) break;
    bytes.append(buf, static_cast<std::size_t>(n));
    if (bytes.size() > sb::kMaxReaperSpecBytes) {
      errno = E2BIG;
      Fail(sb::kStageSpec);
    }
  }
  ::close(sb::kReaperSpecFd);
  auto spec = sb::DecodeReaperSpec(bytes);
  if (!spec) {
    errno = EINVAL;
    Fail(sb::kStageSpec);
  }
  return std::move(*spec);
}

void ApplyLimits(const seragen::sandbox::ResourceLimits& l) {
  if (l.cpu_seconds > 0) SetLimit(RLIMIT_CPU, l.cpu_seconds, l.cpu_seconds + 1);
  if (l.memory_mb > 0) {
    rlim_t v = static_cast<rlim_t>(l.memory_mb) << 20;
    SetLimit(RLIMIT_AS, v, v);
  }
  if (l.max_file_mb > 0) {
    rlim_t v = static_cast<rlim_t>(l.max_file_mb) << 20;
    SetLimit(RLIMIT_FSIZE, v, v);
  }
  if (l.max_processes > 0) SetLimit(RLIMIT_NPROC, l.max_processes, l.max_processes);
  SetLimit(RLIMIT_CORE, 0, 0);
}

// Limits, cgroup, uid/gid, directory: everything the program inherits.
void EnterSlot(const ReaperSpec& spec) {
  if (spec.limits) ApplyLimits(*spec.limits);
  if (!spec.cgroup_procs.empty()) {
    int cg = ::open(spec.cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (cg < 0 || ::write(cg, "0", 1) != 1) Fail(sb::kStageCgroup);
    ::close(cg);
  }
  if (spec.credentials) {
    const auto [uid, gid] = *spec.credentials;
    if (::setgroups(spec.groups.size(), spec.groups.empty() ? nullptr : spec.groups.data()) != 0) {
      Fail(sb::kStageCredentials);
    }
    if (::setresgid(gid, gid, gid) != 0) Fail(sb::kStageCredentials);
    if (::setresuid(uid, uid, uid) != 0) Fail(sb::kStageCredentials);
  }
  if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0) Fail(sb::kStageCwd);
}

// Forks the program into its own process group; returns its pid.
pid_t StartProgram(const ReaperSpec& spec) {
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t reaper_pid = ::getpid();
  pid_t main_pid = ::fork();
  if (main_pid < 0) Fail(sb::kStageFork);
  if (main_pid == 0) {
    ::setpgid(0, 0);  // its own group, which the runner kills as a whole
    // The reaper is single-threaded, so this signal is tied to it; checked
    // after arming so a reaper that died in between is not missed.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != reaper_pid) ::_exit(127);
    ::execve(spec.executable.c_str(), argv.data(), envp.data());
    Fail(sb::kStageExec);
  }
  ::setpgid(main_pid, main_pid);
  return main_pid;
}

// Reaps every child that has exited (the program and orphans re-parented to
// the reaper); records the program's status. True once the program is gone.
bool ReapExited(pid_t main_pid, int* main_status, bool* main_done) {
  for (;;) {
    int status;
    pid_t r = ::waitpid(-1, &status, WNOHANG);
    if (r == main_pid) {
      *main_status = status;
      *main_done = true;
      continue;
    }
    if (r > 0) continue;
    if (r < 0 && errno == ECHILD) *main_done = true;
    return *main_done;
  }
}

// Waits until the program ends (true) or the harness dies (false).
bool WaitForProgram(pid_t main_pid, int* main_status) {
  const int main_fd = static_cast<int>(::syscall(SYS_pidfd_open, main_pid, 0));
  bool main_done = false;
  while (!ReapExited(main_pid, main_status, &main_done)) {
    pollfd fds[2] = {{sb::kReaperLifelineFd, POLLIN, 0}, {main_fd, POLLIN, 0}};
    // Without a pidfd (old kernels) poll the program's state every 20 ms.
    int pr = ::poll(fds, main_fd >= 0 ? 2 : 1, main_fd >= 0 ? 1000 : 20);
    if (pr > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) return false;
  }
  return true;
}

}  // namespace

int main() {
  // Neither the start report nor the lifeline reaches the program; nothing
  // else of the harness is held (its descriptors are close-on-exec anyway).
  if (::fcntl(sb::kReaperErrFd, F_SETFD, FD_CLOEXEC) != 0) ::_exit(127);
  if (::fcntl(sb::kReaperLifelineFd, F_SETFD, FD_CLOEXEC) != 0) Fail(sb::kStageStreams);
  ::syscall(SYS_close_range, static_cast<unsigned>(sb::kReaperFds), ~0u, 0u);
  ::setpgid(0, 0);
  // Default signal dispositions and an empty mask for the program.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) ::signal(sig, SIG_DFL);

  const ReaperSpec spec = ReadSpec();
  EnterSlot(spec);
  // Orphans of the program (e.g. the sandbox's init after bwrap exits) are
  // re-parented here and reaped, so no zombie of the sandbox uid outlives
  // the run on any host.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t main_pid = StartProgram(spec);
  int announce[2] = {0, static_cast<int>(main_pid)};
  ssize_t ignored = ::write(sb::kReaperErrFd, announce, sizeof announce);
  (void)ignored;
  for (int fd = 0; fd <= sb::kReaperErrFd; ++fd) ::close(fd);  // never hold the output pipes open

  const bool as_slot_uid = ::getuid() != 0;
  int main_status = 0;
  const bool harness_gone = !WaitForProgram(main_pid, &main_status);
  ::kill(-main_pid, SIGKILL);                            // background jobs left in the program's group
  if (harness_gone && as_slot_uid) ::kill(-1, SIGKILL);  // every process of the slot uid but this one
  // Reap what remains (bounded: an escaped process is left to init).
  for (int i = 0; i < 500; ++i) {
    int status;
    pid_t r = ::waitpid(-1, &status, WNOHANG);
    if (r < 0 && errno == ECHILD) break;
    if (r > 0) continue;
    struct timespec ms = {0, 1000000};
    ::nanosleep(&ms, nullptr);
  }
  if (harness_gone) ::_exit(137);
  if (WIFSIGNALED(main_status)) {
    int sig = WTERMSIG(main_status);
    ::signal(sig, SIG_DFL);
    ::kill(::getpid(), sig);
    ::_exit(128 + sig);
  }
  ::_exit(WIFEXITED(main_status) ? WEXITSTATUS(main_status) : 127);
}
