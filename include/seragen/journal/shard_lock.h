// ShardLock: one writer per shard, enforced with flock(2) on RUN_DIR/shard-K/lock.
//
// flock locks belong to the open file description, so the kernel releases
// them when the holder exits for any reason (SIGKILL, node reboot on local
// disks): a lock left by a dead process is never "stale". Two openers in the
// same process conflict too. The lock file is never deleted (deleting it would
// let two processes lock two different inodes); while held it contains
// "pid=<pid> host=<host> since=<ISO time>" for error messages, and it is
// emptied on release. On NFS, Linux emulates flock with byte-range locks, which
// works across clients; Lustre needs the `flock` mount option.
#pragma once

#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/base/unique_fd.h"

namespace seragen::journal {

// True when some process holds the lock on `lock_path` now (a run is
// writing that shard); false when it is free, missing or unreadable.
bool ShardLockHeld(const std::string& lock_path);

class ShardLock {
 public:
  // Takes the lock without waiting. `what` names the locked thing in errors
  // (e.g. "shard 2/8"). kFailedPrecondition when another holder has it; the
  // message names `what`, the lock file and the holder's pid/host/since when
  // readable. kIoError when the file cannot be opened.
  static Result<ShardLock> Acquire(const std::string& lock_path, std::string_view what);

  ShardLock(ShardLock&& other) noexcept;
  ShardLock& operator=(ShardLock&& other) noexcept;
  ShardLock(const ShardLock&) = delete;
  ShardLock& operator=(const ShardLock&) = delete;
  ~ShardLock();  // releases

  const std::string& path() const { return path_; }
  bool held() const { return fd_.valid(); }
  void Release();

 private:
  ShardLock(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  UniqueFd fd_;
  std::string path_;
};

}  // namespace seragen::journal
