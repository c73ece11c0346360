// IncrementalCopyMeter: the CopyMeter of a rollout's copy (and its /tmp)
// that walks the tree once and afterwards only looks at what changed.
// inotify watches every directory; a Measure reads the events since the last
// one and re-stats just the entries they name (and their directory), so a
// command that touched a few files costs a few stats instead of a walk of a
// 33,000-file tree. The tree is agent-written: directories are reopened from
// the root one component at a time with O_NOFOLLOW (never through a
// symlink), the copy's file system is never left, and every doubt (the
// kernel's event queue overflowed, a watch could not be added, a directory
// came back under a known watch, a root moved or vanished, a walk stopped
// at a limit) makes the next Measure walk the whole tree again, exactly like
// DirectoryCopyMeter. Counts what DirectoryCopyMeter counts.
//
// Thread-safe (Measure calls are serialised).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "seragen/base/unique_fd.h"
#include "seragen/sandbox/copy_usage.h"

namespace seragen::sandbox {

class IncrementalCopyMeter final : public CopyMeter {
 public:
  explicit IncrementalCopyMeter(std::vector<std::string> roots);
  Result<CopyUsage> Measure(std::uint64_t limit_bytes, std::uint64_t max_entries) override;
  // Whole walks so far (the first Measure is one).
  std::uint64_t full_walks() const;

 private:
  struct Child {
    std::uint64_t blocks = 0;  // bytes allocated (st_blocks * 512)
    std::uint64_t ino = 0;
    int wd = -1;  // a watched directory: its watch
  };
  struct Dir {
    int parent_wd = -1;  // -1: a root
    std::size_t root = 0;
    std::string name;  // in its parent
    std::unordered_map<std::string, Child> children;
  };
  struct Root {
    std::string path;
    unsigned long dev = 0;
    int wd = -1;
    std::uint64_t blocks = 0;
  };
  struct Limits {
    std::uint64_t bytes;
    std::uint64_t entries;
  };

  Status Rebuild(Limits limits);
  // Watches and counts the directory open at `fd` (known as `wd`'s child
  // `name`, or a root); false when a limit or a watch stops it.
  bool Scan(UniqueFd fd, int parent_wd, std::size_t root, const std::string& name, int depth, Limits limits,
            int* wd_out);
  bool Drain(Limits limits);  // false: the state is in doubt
  bool Refresh(int wd, const std::string& name, Limits limits);
  void Forget(const Child& c);  // its subtree's counts and watches
  void Count(const Child& c, bool add);
  void SetOwnBlocks(int wd, std::uint64_t blocks);  // a directory's own size, counted in its parent
  UniqueFd OpenDir(int wd, int* depth) const;
  bool Over(Limits limits) const { return over_ || bytes_ > limits.bytes || entries_ > limits.entries; }

  mutable std::mutex mu_;
  std::vector<Root> roots_;
  UniqueFd inotify_;
  std::unordered_map<int, Dir> dirs_;  // by watch
  std::uint64_t bytes_ = 0;
  std::uint64_t entries_ = 0;
  bool over_ = false;  // nested past kMaxCopyDepth
  bool valid_ = false;
  std::uint64_t full_walks_ = 0;
};

}  // namespace seragen::sandbox
