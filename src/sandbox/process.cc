#include "seragen/sandbox/process.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "seragen/base/unique_fd.h"
#include "seragen/base/utf8.h"

namespace seragen::sandbox {
namespace {

using Steady = std::chrono::steady_clock;

Status MakePipe(UniqueFd* read_end, UniqueFd* write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return IoError(std::string("pipe2: ") + std::strerror(errno));
  *read_end = UniqueFd(fds[0]);
  *write_end = UniqueFd(fds[1]);
  return Status::Ok();
}

// A pipe holding `data` with its write end closed: the reader gets the
// bytes, then EOF, and nothing is left in it afterwards.
Result<UniqueFd> FilledPipe(const std::string& data) {
  if (data.size() > kMaxFd4InputBytes) {
    return InvalidArgumentError("fd 4 input is " + std::to_string(data.size()) + " bytes; the limit is " +
                                std::to_string(kMaxFd4InputBytes));
  }
  UniqueFd r, w;
  SG_RETURN_IF_ERROR(MakePipe(&r, &w));
  if (data.size() > 65536 && ::fcntl(w.get(), F_SETPIPE_SZ, static_cast<int>(data.size())) < 0) {
    return IoError(std::string("cannot grow a pipe for fd 4 input: ") + std::strerror(errno));
  }
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(w.get(), data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return IoError(std::string("cannot fill the fd 4 pipe: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return r;
}

// Keeps the first `head_cap` (+3 spare bytes, to cut on a character
// boundary later) and the last `tail_cap` bytes of a stream.
class HeadTailBuffer {
 public:
  HeadTailBuffer(std::size_t head_cap, std::size_t tail_cap) : head_cap_(head_cap), tail_cap_(tail_cap) {}
  void Append(const char* data, std::size_t n) {
    total_ += n;
    const std::size_t head_room = head_cap_ + 3 > head_.size() ? head_cap_ + 3 - head_.size() : 0;
    const std::size_t to_head = std::min(head_room, n);
    head_.append(data, to_head);
    data += to_head;
    n -= to_head;
    if (n == 0) return;
    tail_.append(data, n);
    if (tail_.size() > 2 * (tail_cap_ + 4) + 65536) {
      const std::size_t drop = tail_.size() - (tail_cap_ + 4);
      tail_.erase(0, drop);
      dropped_ += drop;
    }
  }
  void Finish(ProcessOutcome* out) {
    out->total_bytes = total_;
    if (total_ <= head_cap_ + tail_cap_) {
      out->head = head_ + tail_;
      return;
    }
    const std::size_t head_len = Utf8SafePrefixLength(head_, head_cap_);
    std::string rest;  // bytes after the kept head
    rest.reserve(head_.size() - head_len + tail_.size());
    rest.append(head_, head_len, std::string::npos);
    rest.append(tail_);
    // `rest` is the end of the stream; keep its last tail_cap bytes, starting
    // on a character boundary (skip at most 3 continuation bytes).
    std::size_t start = rest.size() > tail_cap_ ? rest.size() - tail_cap_ : 0;
    for (int k = 0; k < 3 && start < rest.size() && (static_cast<unsigned char>(rest[start]) & 0xC0) == 0x80; ++k) {
      ++start;
    }
    out->head = head_.substr(0, head_len);
    out->tail = rest.substr(start);
    out->omitted_bytes = total_ - out->head.size() - out->tail.size();
  }

 private:
  std::size_t head_cap_, tail_cap_;
  std::string head_, tail_;
  std::uint64_t total_ = 0, dropped_ = 0;
};

void SetLimit(int resource, rlim_t soft, rlim_t hard) {
  struct rlimit rl;
  rl.rlim_cur = soft;
  rl.rlim_max = hard;
  ::setrlimit(resource, &rl);
}

// Descriptor numbers inside the reaper (see ChildExec).
constexpr int kInputFd = 4;     // ProcessSpec::fd4_input, inherited by the program
constexpr int kErrFd = 5;       // start report to the parent
constexpr int kLifelineFd = 6;  // read end; hangs up when the harness dies
constexpr int kReaperFds = 7;

// Moves the descriptors the reaper needs to fixed numbers and closes every
// other one: a forked (never exec'd) reaper must not hold the harness's
// other pipes, least of all another reaper's lifeline. `src[i]` goes to
// fd i (-1 = leave fd i closed). False on failure.
bool ArrangeReaperFds(const int (&src)[kReaperFds]) {
  int tmp[kReaperFds];
  for (int i = 0; i < kReaperFds; ++i) {
    tmp[i] = src[i] < 0 ? -1 : ::fcntl(src[i], F_DUPFD_CLOEXEC, 16);
    if (src[i] >= 0 && tmp[i] < 0) return false;
  }
  for (int i = 0; i < kReaperFds; ++i) {
    if (tmp[i] < 0) {
      ::close(i);
    } else if (::dup2(tmp[i], i) < 0) {
      return false;
    }
  }
  ::syscall(SYS_close_range, static_cast<unsigned>(kReaperFds), ~0u, 0u);
  // The program inherits neither the start report nor the lifeline.
  ::fcntl(kErrFd, F_SETFD, FD_CLOEXEC);
  ::fcntl(kLifelineFd, F_SETFD, FD_CLOEXEC);
  return true;
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

// Runs in the forked child: only async-signal-safe calls. Never returns.
//
// This process (the reaper) forks the program and stays behind until it
// ends. It does not use a parent-death signal: that signal follows the
// forking *thread* and is lost when the harness dies before it is armed.
// Instead it watches the lifeline pipe, whose only write end lives in the
// harness: when the harness dies (however), the pipe hangs up and the
// reaper kills the program's group and, when it runs as the slot uid,
// every process of that uid (kill(-1) as that uid), including processes a
// namespace setup left outside the group.
[[noreturn]] void ChildExec(const ProcessSpec& spec, const char* exe, char* const* argv, char* const* envp, int out_fd,
                            int side_fd, int input_fd, int err_fd, int life_fd) {
  auto fail_on = [](int fd, int stage) {
    int payload[2] = {stage, errno};
    ssize_t ignored = ::write(fd, payload, sizeof payload);
    (void)ignored;
    ::_exit(127);
  };
  ::setpgid(0, 0);
  // Default signal dispositions and an empty mask for the new program.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) ::signal(sig, SIG_DFL);

  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0) fail_on(err_fd, 1);
  const int src[kReaperFds] = {devnull, out_fd, out_fd, side_fd, input_fd, err_fd, life_fd};
  if (!ArrangeReaperFds(src)) fail_on(err_fd, 1);
  auto fail = [&](int stage) { fail_on(kErrFd, stage); };

  if (spec.limits) {
    const ResourceLimits& l = *spec.limits;
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
  if (!spec.cgroup_procs.empty()) {
    int cg = ::open(spec.cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (cg < 0 || ::write(cg, "0", 1) != 1) fail(6);
    ::close(cg);
  }
  if (spec.credentials) {
    if (::setgroups(spec.groups.size(), spec.groups.empty() ? nullptr : spec.groups.data()) != 0) fail(2);
    if (::setresgid(spec.credentials->second, spec.credentials->second, spec.credentials->second) != 0) fail(2);
    if (::setresuid(spec.credentials->first, spec.credentials->first, spec.credentials->first) != 0) fail(2);
  }
  if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0) fail(3);

  // Orphans of the program (e.g. the sandbox's init after bwrap exits) are
  // re-parented here and reaped, so no zombie of the sandbox uid outlives
  // the run on any host.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t reaper_pid = ::getpid();
  pid_t main_pid = ::fork();
  if (main_pid < 0) fail(5);
  if (main_pid == 0) {
    ::setpgid(0, 0);  // its own group, which the runner kills as a whole
    // The reaper is single-threaded, so this signal is tied to it; checked
    // after arming so a reaper that died in between is not missed.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != reaper_pid) ::_exit(127);
    ::execve(exe, argv, envp);
    fail(4);
  }
  ::setpgid(main_pid, main_pid);
  int announce[2] = {0, static_cast<int>(main_pid)};
  ssize_t ignored = ::write(kErrFd, announce, sizeof announce);
  (void)ignored;
  for (int fd = 0; fd <= kErrFd; ++fd) ::close(fd);  // never hold the output pipes open

  const bool as_slot_uid = ::getuid() != 0;
  const int main_fd = static_cast<int>(::syscall(SYS_pidfd_open, main_pid, 0));
  int main_status = 0;
  bool main_done = false;
  bool harness_gone = false;
  while (!ReapExited(main_pid, &main_status, &main_done)) {
    pollfd fds[2] = {{kLifelineFd, POLLIN, 0}, {main_fd, POLLIN, 0}};
    // Without a pidfd (old kernels) poll the program's state every 20 ms.
    int pr = ::poll(fds, main_fd >= 0 ? 2 : 1, main_fd >= 0 ? 1000 : 20);
    if (pr > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      harness_gone = true;
      break;
    }
  }
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

std::string DescribeStartFailure(const ProcessSpec& spec, int stage, int err) {
  const char* what = stage == 1   ? "set up its standard streams"
                     : stage == 2 ? "switch to the sandbox uid/gid"
                     : stage == 3 ? "enter the working directory"
                     : stage == 5 ? "fork"
                     : stage == 6 ? "join the slot's cgroup"
                                  : "execute";
  std::ostringstream os;
  os << "cannot start " << spec.executable << ": failed to " << what;
  if (stage == 3) os << " '" << spec.cwd << "'";
  if (stage == 6) os << " '" << spec.cgroup_procs << "'";
  os << ": " << std::strerror(err);
  return os.str();
}

}  // namespace

Result<std::string> FindExecutable(const std::string& name, const std::string& path_var) {
  auto usable = [](const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0;
  };
  if (name.empty()) return InvalidArgumentError("empty executable name");
  if (name.find('/') != std::string::npos) {
    if (usable(name)) return name;
    return NotFoundError("executable not found: " + name);
  }
  std::size_t start = 0;
  while (start <= path_var.size()) {
    std::size_t end = path_var.find(':', start);
    if (end == std::string::npos) end = path_var.size();
    std::string dir = path_var.substr(start, end - start);
    if (!dir.empty()) {
      std::string candidate = dir + "/" + name;
      if (usable(candidate)) return candidate;
    }
    start = end + 1;
  }
  return NotFoundError("'" + name + "' not found in PATH (" + path_var + ")");
}

namespace {

// The parent's side of a started reaper (see ChildExec).
struct ReaperWatch {
  pid_t pid;
  pid_t program_pid;  // -1 when the reaper did not report it
  bool exited = false;
  int wait_status = 0;
  bool killed = false;
  Steady::time_point drain_deadline{};
  Steady::time_point kill_time{};

  // Kills the program's group; the reaper then reaps everything and exits.
  // Should it not exit within a second, it is killed too.
  void KillGroup() {
    if (program_pid > 0) ::kill(-program_pid, SIGKILL);
    else ::kill(-pid, SIGKILL);
    killed = true;
    kill_time = Steady::now();
  }
  void Reap(int flags) {
    if (exited) return;
    int status;
    pid_t r = ::waitpid(pid, &status, flags);
    if (r == pid) {
      exited = true;
      wait_status = status;
      // No kill here: the reaper already killed the program's group, and
      // once reaped these ids may belong to someone else.
      drain_deadline = Steady::now() + std::chrono::milliseconds(300);
    }
  }
};

// Did exec succeed? The error pipe carries (0, program pid) from the
// reaper, then closes on exec, or carries (stage, errno) on failure (the
// reaper is then waited for). Returns the program's pid, -1 if unreported.
Result<pid_t> ReadStartReport(const ProcessSpec& spec, pid_t pid, int err_fd) {
  pid_t program_pid = -1;
  for (;;) {
    int payload[2] = {0, 0};
    ssize_t got;
    do {
      got = ::read(err_fd, payload, sizeof payload);
    } while (got < 0 && errno == EINTR);
    if (got != static_cast<ssize_t>(sizeof payload)) break;
    if (payload[0] == 0) {
      program_pid = payload[1];
      continue;
    }
    int status;
    ::waitpid(pid, &status, 0);
    return IoError(DescribeStartFailure(spec, payload[0], payload[1]));
  }
  return program_pid;
}

// One read of the combined output; kills the group past kill_after_bytes.
// Closes *fd at EOF or on a read error.
void ReadOutput(const ProcessSpec& spec, UniqueFd* fd, char* chunk, std::size_t chunk_size, HeadTailBuffer* buffer,
                ProcessOutcome* outcome, ReaperWatch* watch) {
  ssize_t r = ::read(fd->get(), chunk, chunk_size);
  if (r > 0) {
    buffer->Append(chunk, static_cast<std::size_t>(r));
    outcome->total_bytes += static_cast<std::uint64_t>(r);
    if (!watch->killed && outcome->total_bytes > spec.kill_after_bytes) {
      outcome->output_limit_killed = true;
      watch->KillGroup();
    }
  } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
    fd->reset();
  }
}

// One read of the side channel, kept up to side_channel_cap bytes.
// Closes *fd at EOF or on a read error.
void ReadSideChannel(const ProcessSpec& spec, UniqueFd* fd, char* chunk, std::size_t chunk_size,
                     ProcessOutcome* outcome) {
  ssize_t r = ::read(fd->get(), chunk, chunk_size);
  if (r > 0) {
    std::size_t room = spec.side_channel_cap - std::min(spec.side_channel_cap, outcome->side_channel.size());
    if (static_cast<std::size_t>(r) > room) outcome->side_channel_overflow = true;
    outcome->side_channel.append(chunk, std::min(room, static_cast<std::size_t>(r)));
  } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
    fd->reset();
  }
}

void SetExitStatus(int wait_status, ProcessOutcome* outcome) {
  if (WIFEXITED(wait_status)) {
    outcome->exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    outcome->term_signal = WTERMSIG(wait_status);
    outcome->exit_code = 128 + outcome->term_signal;
  }
}

}  // namespace

Result<ProcessOutcome> RunProcess(const ProcessSpec& spec) {
  if (spec.argv.empty()) return InvalidArgumentError("RunProcess: empty argv");
  // Everything the child needs is prepared before fork (no allocation after).
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  UniqueFd out_r, out_w, side_r, side_w, err_r, err_w, life_r, life_w;
  SG_RETURN_IF_ERROR(MakePipe(&out_r, &out_w));
  SG_RETURN_IF_ERROR(MakePipe(&err_r, &err_w));
  // The lifeline: its write end stays in this process until the reaper has
  // been waited for, so the reaper sees it hang up only if we die first.
  SG_RETURN_IF_ERROR(MakePipe(&life_r, &life_w));
  if (spec.side_channel) SG_RETURN_IF_ERROR(MakePipe(&side_r, &side_w));
  UniqueFd input_r;
  if (spec.fd4_input) {
    SG_ASSIGN_OR_RETURN(input_r, FilledPipe(*spec.fd4_input));
  }

  const auto start = Steady::now();
  pid_t pid = ::fork();
  if (pid < 0) return IoError(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ChildExec(spec, spec.executable.c_str(), argv.data(), envp.data(), out_w.get(),
              spec.side_channel ? side_w.get() : -1, input_r.get(), err_w.get(), life_r.get());
  }
  // Parent. Also set the group from here, so a kill right after fork works.
  ::setpgid(pid, pid);
  out_w.reset();
  side_w.reset();
  err_w.reset();
  life_r.reset();
  input_r.reset();

  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));

  SG_ASSIGN_OR_RETURN(pid_t program_pid, ReadStartReport(spec, pid, err_r.get()));
  err_r.reset();

  ProcessOutcome outcome;
  HeadTailBuffer buffer(spec.head_bytes, spec.tail_bytes);
  const auto deadline = start + spec.timeout;
  ReaperWatch watch{pid, program_pid};
  char chunk[65536];
  while (out_r.valid() || side_r.valid() || !watch.exited) {
    auto now = Steady::now();
    if (!watch.exited && !watch.killed && now >= deadline) {
      outcome.timed_out = true;
      watch.KillGroup();
    }
    if (watch.exited && now >= watch.drain_deadline) break;  // an escaped writer keeps a pipe open
    if (!watch.exited && watch.killed && now - watch.kill_time > std::chrono::seconds(1)) ::kill(-pid, SIGKILL);
    pollfd fds[3];
    int n = 0;
    int out_idx = -1, side_idx = -1;
    if (out_r.valid()) {
      out_idx = n;
      fds[n++] = {out_r.get(), POLLIN, 0};
    }
    if (side_r.valid()) {
      side_idx = n;
      fds[n++] = {side_r.get(), POLLIN, 0};
    }
    if (!watch.exited && pidfd.valid()) fds[n++] = {pidfd.get(), POLLIN, 0};
    auto until = watch.exited ? watch.drain_deadline : (watch.killed ? now + std::chrono::milliseconds(50) : deadline);
    if (!pidfd.valid() && !watch.exited) until = std::min(until, now + std::chrono::milliseconds(20));
    int wait_ms = static_cast<int>(
        std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1));
    int pr = n > 0 ? ::poll(fds, n, wait_ms) : (::usleep(1000), 0);
    if (pr < 0 && errno != EINTR) return IoError(std::string("poll: ") + std::strerror(errno));
    if (pr > 0 && out_idx >= 0 && (fds[out_idx].revents & (POLLIN | POLLHUP | POLLERR))) {
      ReadOutput(spec, &out_r, chunk, sizeof chunk, &buffer, &outcome, &watch);
    }
    if (pr > 0 && side_idx >= 0 && (fds[side_idx].revents & (POLLIN | POLLHUP | POLLERR))) {
      ReadSideChannel(spec, &side_r, chunk, sizeof chunk, &outcome);
    }
    if (!watch.exited) watch.Reap(WNOHANG);
  }
  if (!watch.exited) {
    watch.KillGroup();
    int status;
    ::waitpid(pid, &status, 0);
    watch.wait_status = status;
  }
  buffer.Finish(&outcome);
  SetExitStatus(watch.wait_status, &outcome);
  outcome.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - start);
  return outcome;
}

}  // namespace seragen::sandbox
