// A memory bound for all processes of one slot together (cgroup v2), on
// top of the per-process address-space limit (RLIMIT_AS), which alone lets a
// slot use up to max_processes x memory_mb.
//
// Each slot gets a child cgroup `slot-<uid>` of a parent directory seragen
// may manage (default /sys/fs/cgroup/seragen; on systemd hosts a delegated
// subtree), with memory.max set and swap off. The reaper of every command
// joins it (writes "0" to its cgroup.procs) before switching to the slot
// uid, so bwrap and everything inside inherit it. When cgroup v2 or its
// memory controller is not available, Detect() says why and the caller logs
// the fallback.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "seragen/base/result.h"

namespace seragen::sandbox {

class SlotCgroups {
 public:
  virtual ~SlotCgroups() = default;
  // Creates (or reuses) the slot's cgroup with memory.max = memory_max_bytes
  // and returns the path of its cgroup.procs (ProcessSpec::cgroup_procs).
  virtual Result<std::string> PrepareSlot(uid_t uid, std::uint64_t memory_max_bytes) = 0;
};

// The real cgroup v2 implementation. Not thread-safe: prepare slots at
// start, from one thread.
class CgroupV2Slots final : public SlotCgroups {
 public:
  // OK when `parent` (created if missing) is on a cgroup2 file system, lists
  // the memory controller in cgroup.controllers and accepts "+memory" in
  // cgroup.subtree_control. kUnavailable naming the reason otherwise.
  static Result<std::unique_ptr<CgroupV2Slots>> Detect(const std::string& parent);
  // The same without the file-system type check (tests on a plain directory).
  static Result<std::unique_ptr<CgroupV2Slots>> DetectUnchecked(const std::string& parent);

  Result<std::string> PrepareSlot(uid_t uid, std::uint64_t memory_max_bytes) override;

 private:
  explicit CgroupV2Slots(std::string parent) : parent_(std::move(parent)) {}
  std::string parent_;
};

// Records prepared slots; the returned "cgroup.procs" path lies under
// `dir` (a plain file the reaper writes "0" to). Thread-safe.
class FakeSlotCgroups final : public SlotCgroups {
 public:
  explicit FakeSlotCgroups(std::string dir) : dir_(std::move(dir)) {}
  Result<std::string> PrepareSlot(uid_t uid, std::uint64_t memory_max_bytes) override;
  std::map<uid_t, std::uint64_t> prepared() const {
    std::lock_guard<std::mutex> lock(mu_);
    return prepared_;
  }

 private:
  mutable std::mutex mu_;
  std::string dir_;
  std::map<uid_t, std::uint64_t> prepared_;
};

}  // namespace seragen::sandbox
