// WorkingCopyPool: reusable working copies of one repository at one commit.
//
// A copy is a work tree plus its own small git directory whose
// objects/info/alternates points at the pool's object store (like `git clone
// --shared`), so creating one costs a checkout and no object copying. That
// store is one pack of exactly what the base commit reaches (its history,
// trees and blobs; no later commit, no other branch or tag), built once per
// (repository, commit) when the pool is created. Acquire() hands out a copy that is exactly the base commit (HEAD
// detached at it, no modified, untracked or ignored files); releasing the
// lease restores the copy in place (forced checkout of the base tree plus
// removal of untracked and ignored files), which rewrites only what changed.
//
// Layout under WorkingCopyPoolOptions::pool_dir:
//   <repo>-<hash>-<commit12>/copy-N/        the work tree (bind-mount this)
//   <repo>-<hash>-<commit12>/copy-N/.git/   disposable git dir for the agent's
//                                           own git commands; rebuilt on every
//                                           Acquire, never opened by host code
//   <repo>-<hash>-<commit12>/copy-N.git/    authoritative git dir (HEAD, index,
//                                           config, alternates): host only
//   <repo>-<hash>-<commit12>/copy-N.lock    flock held while copy-N is leased
//   <repo>-<hash>-<commit12>/copy-N.clean   present only while copy-N is known clean
//   <repo>-<hash>-<commit12>/objects/       the pruned object store the copies borrow
// Everything but the work tree lives outside it, so code running inside the
// copy cannot touch it: host-side git takes no configuration, hooks, info/ or
// attributes from agent-writable files (the base commit's .gitattributes
// apply when restoring), and every host-side delete or write in the work tree
// refuses to follow a symlink or leave the copy. A process killed while
// holding a lease leaves no ".clean" stamp, so the next Acquire of that copy
// (in any process) restores it first. Several processes may share one
// pool_dir: the flock keeps each copy to one holder.
//
// A sandbox must make objects_dir() readable at the same path.
//
// Thread-safety: all members are thread-safe. Each operation opens its own
// libgit2 handles. The pool's state is shared with its leases, so a lease may
// outlive the WorkingCopyPool object that made it.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/base/status.h"
#include "seragen/repo/copy_paths.h"
#include "seragen/repo/repository.h"

namespace seragen::repo {

struct WorkingCopyPoolOptions {
  // Root directory for copies; created if missing. tmpfs (e.g. /dev/shm/seragen)
  // makes checkouts and restores several times faster than a disk.
  std::string pool_dir;
  // Most copies this pool keeps (leased or idle) in pool_dir for this commit.
  std::size_t capacity = 4;
  // After each restore, run a status check (untracked and ignored files
  // included); a copy still dirty is deleted and rebuilt on next use.
  bool verify_after_restore = true;
  // Also run that status check at Acquire even when the ".clean" stamp is
  // present (catches edits made to an idle copy by something outside seragen).
  bool verify_on_acquire = false;
};

class WorkingCopyLease;

class WorkingCopyPool {
 public:
  // `base_commit` is resolved in `source` (any revision accepted). Builds the
  // pool's object store on first use (a revision walk and a pack of the base
  // commit's history); copies are created lazily by Acquire. InvalidArgument for a zero capacity or an empty
  // pool_dir; NotFound when the commit does not exist.
  static Result<WorkingCopyPool> Create(const Repository& source, std::string_view base_commit,
                                        const WorkingCopyPoolOptions& options);

  WorkingCopyPool(WorkingCopyPool&&) noexcept;
  WorkingCopyPool& operator=(WorkingCopyPool&&) noexcept;
  ~WorkingCopyPool();

  // A copy at the base commit, reusing an idle one or creating a new one.
  // When all `capacity` copies are leased, waits up to `wait` for a release,
  // then returns ResourceExhausted.
  Result<WorkingCopyLease> Acquire(std::chrono::milliseconds wait = std::chrono::milliseconds(0));
  // As above, preferring an idle copy last given to uid `prefer_owner`
  // (WorkingCopyLease::GiveTo), which that uid can then take over without a
  // walk of the whole copy.
  Result<WorkingCopyLease> Acquire(std::chrono::milliseconds wait, unsigned prefer_owner);

  const std::string& base_commit() const;
  // Directory holding this pool's copies, lock files and stamps.
  const std::string& directory() const;
  // The pool's object store the copies borrow (see the sandbox note above).
  const std::string& objects_dir() const;
  std::size_t capacity() const;

  struct State;  // shared with leases; defined in working_copy_pool.cc

 private:
  explicit WorkingCopyPool(std::shared_ptr<State> state);
  Result<WorkingCopyLease> AcquireFor(std::chrono::milliseconds wait, std::optional<unsigned> prefer_owner);
  std::shared_ptr<State> state_;
};

// Exclusive use of one working copy. Move-only. Destruction releases it (as
// Release() does, logging a failure instead of returning it).
class WorkingCopyLease {
 public:
  WorkingCopyLease(WorkingCopyLease&& other) noexcept;
  WorkingCopyLease& operator=(WorkingCopyLease&& other) noexcept;
  ~WorkingCopyLease();

  // Absolute path of the work tree.
  const std::string& path() const { return paths_.work_tree; }
  // The work tree and the authoritative git directory (for diff and restore).
  const CopyPaths& paths() const { return paths_; }
  const std::string& base_commit() const { return base_commit_; }

  // Restores the copy to the base commit and returns it to the pool. The copy
  // is returned even when restoring fails (it is then rebuilt on next use), and
  // the failure is reported. Calling it again is a no-op returning OK.
  Status Release();

  // Gives the copy to uid:gid for a sandbox running as that uid (needs root).
  // The pool remembers a copy's owner and, after each restore, gives the
  // paths the restore rewrote back to it; so when the copy already belongs to
  // uid:gid only what root wrote since (the work tree's .git, /tmp) changes
  // hands. Otherwise, or when the pool does not know the owner (a new
  // process, a rebuilt or wholly checked-out copy), AdoptOwnership walks it.
  Status GiveTo(unsigned uid, unsigned gid);

 private:
  friend class WorkingCopyPool;
  WorkingCopyLease(std::shared_ptr<WorkingCopyPool::State> pool, std::size_t slot, CopyPaths paths);
  std::shared_ptr<WorkingCopyPool::State> pool_;
  std::size_t slot_ = 0;
  CopyPaths paths_;
  std::string base_commit_;
};

// Restores the copy to `base_commit` (40-hex) in place: HEAD detached at it,
// forced checkout of its tree, untracked and ignored files removed. Exposed
// for tools that manage copies themselves.
Status RestoreWorkingCopy(const CopyPaths& copy, std::string_view base_commit);

// Gives every file and directory of the work tree (its .git included), and
// the lease's /tmp directory, to uid:gid (never following a symlink, skipping those already right) and
// updates the authoritative index's stat cache, and the agent's copy of it,
// for the ownership change. The authoritative git directory stays as it is. A plain `chown -R` changes every file's
// ctime and owner, which the stat cache compares: each later status, restore or diff then re-hashes every file
// (measured: 0.7 s instead of 15 ms on 5,000 files) until the index is rewritten. Use this for the sandbox's per-slot
// uid.
Status AdoptOwnership(const CopyPaths& copy, unsigned uid, unsigned gid);

// Paths that make the copy differ from a clean checkout (modified, staged,
// untracked and ignored, as `git status --porcelain --ignored` lists them).
Result<std::vector<std::string>> DirtyPaths(const CopyPaths& copy);

}  // namespace seragen::repo
