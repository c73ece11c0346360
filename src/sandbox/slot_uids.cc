#include "seragen/sandbox/slot_uids.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "seragen/base/file_util.h"
#include "seragen/base/unique_fd.h"

namespace seragen::sandbox {

Result<SlotUidLease> SlotUidLease::Acquire(const SlotUidOptions& options) {
  if (options.slots < 1) return InvalidArgumentError("slot uid lease: slots must be at least 1");
  if (options.uid_base == 0) return InvalidArgumentError("slot uid lease: uid_base must not be 0");
  if (options.lock_dir.empty() || options.lock_dir[0] != '/') {
    return InvalidArgumentError("sandbox.uid_lock_dir must be an absolute path, got \"" + options.lock_dir + "\"");
  }
  SG_RETURN_IF_ERROR(MakeDirs(options.lock_dir));
  struct stat st;
  if (::lstat(options.lock_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return IoError("sandbox uid lock directory " + options.lock_dir + " is not a directory");
  }
  SlotUidLease lease;
  for (int i = 0; i < options.max_candidates && static_cast<int>(lease.uids_.size()) < options.slots; ++i) {
    const uid_t uid = options.uid_base + static_cast<uid_t>(i);
    const std::string path = options.lock_dir + "/uid-" + std::to_string(uid) + ".lock";
    UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) return IoError("cannot open sandbox uid lock " + path + ": " + std::strerror(errno));
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      int err = errno;
      if (err == EWOULDBLOCK) continue;  // another run on this node uses this uid
      return IoError("cannot lock " + path + ": " + std::strerror(err));
    }
    lease.uids_.push_back(uid);
    lease.fds_.push_back(std::move(fd));
  }
  if (static_cast<int>(lease.uids_.size()) < options.slots) {
    return ResourceExhaustedError("only " + std::to_string(lease.uids_.size()) + " of " +
                                  std::to_string(options.slots) + " sandbox uids from " +
                                  std::to_string(options.uid_base) +
                                  " are free (other runs on this node hold the "
                                  "rest, see " +
                                  options.lock_dir + "); lower run.concurrency or wait for them to finish");
  }
  return lease;
}

SlotUidLease::SlotUidLease(SlotUidLease&& other) noexcept : uids_(std::move(other.uids_)), fds_(std::move(other.fds_)) {
  other.uids_.clear();
  other.fds_.clear();
}

SlotUidLease& SlotUidLease::operator=(SlotUidLease&& other) noexcept {
  if (this != &other) {
    Release();
    uids_ = std::move(other.uids_);
    fds_ = std::move(other.fds_);
    other.uids_.clear();
    other.fds_.clear();
  }
  return *this;
}

SlotUidLease::~SlotUidLease() { Release(); }

void SlotUidLease::Release() {
  fds_.clear();  // closing releases the flocks
  uids_.clear();
}

namespace {

// Calls `fn(real_uid)` for every live (non-zombie) process; false when /proc
// cannot be read.
template <typename Fn>
bool ForEachProcessUid(Fn fn) {
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return false;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("State:", 0) == 0 && line.find('Z') != std::string::npos) break;  // a zombie: already dead
      if (line.rfind("Uid:", 0) == 0) {
        unsigned long real = 0;
        if (std::sscanf(line.c_str() + 4, "%lu", &real) == 1) fn(static_cast<uid_t>(real));
        break;
      }
    }
  }
  ::closedir(d);
  return true;
}

}  // namespace

int CountProcessesOfUid(uid_t uid) {
  int count = 0;
  if (!ForEachProcessUid([&](uid_t u) { count += u == uid ? 1 : 0; })) return -1;
  return count;
}

std::set<uid_t> UidsWithProcesses() {
  std::set<uid_t> uids;
  ForEachProcessUid([&](uid_t u) { uids.insert(u); });
  return uids;
}

Result<int> KillProcessesOfUid(uid_t uid, int attempts) {
  if (uid == 0) return FailedPreconditionError("refusing to kill the processes of uid 0");
  if (::geteuid() != 0) return FailedPreconditionError("killing the processes of a sandbox uid requires root");
  const int found = CountProcessesOfUid(uid);
  for (int round = 0; round < attempts && CountProcessesOfUid(uid) > 0; ++round) {
    pid_t pid = ::fork();
    if (pid < 0) return IoError(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      // Only async-signal-safe calls: the caller may have other threads.
      if (::setgroups(0, nullptr) != 0 || ::setresgid(uid, uid, uid) != 0 || ::setresuid(uid, uid, uid) != 0) {
        ::_exit(1);
      }
      ::kill(-1, SIGKILL);  // every process this uid may signal, except this one
      ::_exit(0);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      return IoError("cannot switch to sandbox uid " + std::to_string(uid) + " to kill its processes");
    }
    struct timespec pause = {0, 20 * 1000 * 1000};
    ::nanosleep(&pause, nullptr);  // killed processes vanish asynchronously
  }
  const int left = CountProcessesOfUid(uid);
  if (left > 0) {
    return IoError(std::to_string(left) + " processes of sandbox uid " + std::to_string(uid) +
                   " survived SIGKILL (a kernel task stuck in I/O?)");
  }
  return found;
}

}  // namespace seragen::sandbox
