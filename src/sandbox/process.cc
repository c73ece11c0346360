#include "seragen/sandbox/process.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "seragen/base/unique_fd.h"
#include "seragen/base/utf8.h"
#include "seragen/sandbox/reaper_path.h"
#include "seragen/sandbox/reaper_spec.h"

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

std::string DescribeStartFailure(const ProcessSpec& spec, int stage, int err) {
  const char* what = stage == kStageStreams       ? "set up its standard streams"
                     : stage == kStageCredentials ? "switch to the sandbox uid/gid"
                     : stage == kStageCwd         ? "enter the working directory"
                     : stage == kStageFork        ? "fork"
                     : stage == kStageCgroup      ? "join the slot's cgroup"
                     : stage == kStageSpec        ? "read its settings in the reaper"
                                                  : "execute";
  std::ostringstream os;
  os << "cannot start " << spec.executable << ": failed to " << what;
  if (stage == kStageCwd) os << " '" << spec.cwd << "'";
  if (stage == kStageCgroup) os << " '" << spec.cgroup_procs << "'";
  os << ": " << std::strerror(err);
  return os.str();
}

Status MakeSocketPair(UniqueFd* a, UniqueFd* b) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return IoError(std::string("socketpair: ") + std::strerror(errno));
  }
  *a = UniqueFd(fds[0]);
  *b = UniqueFd(fds[1]);
  return Status::Ok();
}

// Starts the reaper with posix_spawn (glibc: CLONE_VM | CLONE_VFORK, so no
// page of this process is copied or write-protected), in its own process
// group, default signal handling, an empty mask and no environment.
// `fds[i]` becomes its fd i (-1: closed; fd 0 is /dev/null). Every source is
// first duplicated above kReaperFds, so no dup2 overwrites a later source.
Result<pid_t> SpawnReaper(const std::string& reaper, const int (&fds)[kReaperFds]) {
  UniqueFd high[kReaperFds];
  for (int i = 0; i < kReaperFds; ++i) {
    if (fds[i] < 0) continue;
    high[i].reset(::fcntl(fds[i], F_DUPFD_CLOEXEC, kReaperFds));
    if (!high[i].valid()) return IoError(std::string("fcntl(F_DUPFD): ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  for (int i = 1; i < kReaperFds; ++i) {
    if (high[i].valid()) {
      posix_spawn_file_actions_adddup2(&actions, high[i].get(), i);
    } else {
      posix_spawn_file_actions_addclose(&actions, i);
    }
  }
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  char* argv[] = {const_cast<char*>("seragen-reaper"), nullptr};
  char* envp[] = {nullptr};
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, reaper.c_str(), &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return IoError("cannot start the reaper " + reaper + ": " + std::strerror(rc));
  return pid;
}

// Writes the program's settings to the reaper and closes the socket (EOF).
Status SendSpec(const ProcessSpec& spec, UniqueFd* fd) {
  ReaperSpec r{spec.executable, spec.argv,        spec.env,    spec.cwd,
               spec.limits,     spec.credentials, spec.groups, spec.cgroup_procs};
  const std::string bytes = EncodeReaperSpec(r);
  if (bytes.size() > kMaxReaperSpecBytes) {
    return InvalidArgumentError("cannot start " + spec.executable + ": its arguments and environment are " +
                                std::to_string(bytes.size()) + " bytes");
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::send(fd->get(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return IoError("cannot start " + spec.executable +
                     ": the reaper did not take its settings: " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  fd->reset();
  return Status::Ok();
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

// The parent's side of a started reaper (see reaper_main.cc).
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
  SG_ASSIGN_OR_RETURN(const std::string reaper, ReaperExecutable());
  UniqueFd out_r, out_w, side_r, side_w, err_r, err_w, life_r, life_w, spec_r, spec_w;
  SG_RETURN_IF_ERROR(MakePipe(&out_r, &out_w));
  SG_RETURN_IF_ERROR(MakePipe(&err_r, &err_w));
  // The lifeline: its write end stays in this process until the reaper has
  // been waited for, so the reaper sees it hang up only if we die first.
  SG_RETURN_IF_ERROR(MakePipe(&life_r, &life_w));
  SG_RETURN_IF_ERROR(MakeSocketPair(&spec_r, &spec_w));
  if (spec.side_channel) SG_RETURN_IF_ERROR(MakePipe(&side_r, &side_w));
  UniqueFd input_r;
  if (spec.fd4_input) {
    SG_ASSIGN_OR_RETURN(input_r, FilledPipe(*spec.fd4_input));
  }

  const auto start = Steady::now();
  const int reaper_fds[kReaperFds] = {-1,          out_w.get(),  out_w.get(), side_w.get(), input_r.get(),
                                      err_w.get(), life_r.get(), spec_r.get()};
  SG_ASSIGN_OR_RETURN(const pid_t pid, SpawnReaper(reaper, reaper_fds));
  // Parent. Also set the group from here, so a kill right after fork works.
  ::setpgid(pid, pid);
  out_w.reset();
  side_w.reset();
  err_w.reset();
  life_r.reset();
  input_r.reset();
  spec_r.reset();
  if (Status sent = SendSpec(spec, &spec_w); !sent.ok()) {
    ::kill(pid, SIGKILL);
    int status;
    ::waitpid(pid, &status, 0);
    return sent;
  }

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
