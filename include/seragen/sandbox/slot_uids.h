// Exclusive sandbox uids per node, and the cleanup of processes a crashed
// run left behind under them.
//
// Every concurrent slot runs its commands as its own uid (RLIMIT_NPROC
// counts per uid). Two runs on one node must never share a uid: one run's
// fork bomb would use the other's process budget, and the straggler cleanup
// below would kill the other run's commands. SlotUidLease takes an flock on
// one file per uid under a node-wide directory; a uid whose lock another
// process holds is skipped, so a second run picks the next free uids.
#pragma once

#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/base/unique_fd.h"

namespace seragen::sandbox {

struct SlotUidOptions {
  // Node-wide directory of lock files (created 0700 when missing). Must be
  // on a local file system shared by every run on the node.
  std::string lock_dir = "/run/seragen/uids";
  uid_t uid_base = 20000;
  int slots = 1;
  // Uids tried, from uid_base upwards, before giving up.
  int max_candidates = 4096;
};

// Owns the locks of `uids()` until destroyed (or the process dies: the
// kernel drops flocks with the last descriptor). Movable, not copyable. Not
// thread-safe; read-only use from many threads is fine.
class SlotUidLease {
 public:
  // kInvalidArgument for bad options; kIoError naming the directory or file
  // that cannot be created or locked; kResourceExhausted when fewer than
  // `slots` free uids exist among the candidates.
  static Result<SlotUidLease> Acquire(const SlotUidOptions& options);

  SlotUidLease(SlotUidLease&& other) noexcept;
  SlotUidLease& operator=(SlotUidLease&& other) noexcept;
  SlotUidLease(const SlotUidLease&) = delete;
  SlotUidLease& operator=(const SlotUidLease&) = delete;
  ~SlotUidLease();

  // One uid per slot, in slot order.
  const std::vector<uid_t>& uids() const { return uids_; }

 private:
  SlotUidLease() = default;
  void Release();
  std::vector<uid_t> uids_;
  std::vector<UniqueFd> fds_;
};

// Number of live host processes (zombies excluded) whose real uid is `uid`
// (a /proc scan); -1 when /proc cannot be read.
int CountProcessesOfUid(uid_t uid);

// Real uids of all live host processes (one /proc scan), so a caller with
// many uids to clean up scans once.
std::set<uid_t> UidsWithProcesses();

// Kills every process whose real uid is `uid`, by sending SIGKILL to -1 from
// a helper that switched to that uid (so nothing of another uid is touched,
// including processes inside other PID namespaces), repeated until none is
// left or `attempts` rounds have passed. Returns the number of processes
// found before the first round. Requires root and uid != 0
// (kFailedPrecondition otherwise); kIoError when processes remain.
Result<int> KillProcessesOfUid(uid_t uid, int attempts = 20);

}  // namespace seragen::sandbox
