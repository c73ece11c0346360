// Internal to the repo module: file-system changes inside a working copy that
// can never reach outside it.
//
// Code running in the sandbox owns every byte below a copy's root and may
// swap any path component for a symlink at any moment. So nothing here takes
// a path string to the kernel: each operation starts from a descriptor of the
// copy's root and opens one component at a time with openat(O_NOFOLLOW), and
// unlinks, creates and chowns relative to the descriptor of the parent it
// opened. A symlink is only ever removed, never followed; a parent component
// that is not a real directory makes the operation fail (FailedPrecondition)
// instead of acting elsewhere.
//
// Thread-safety: a ConfinedDir is used by one thread at a time. Failure: every
// function returns a Status naming the relative path; nothing throws.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/base/status.h"
#include "seragen/base/unique_fd.h"

namespace seragen::repo::internal {

// Directory trees deeper than this are not walked (an error) except by
// RemoveAll, which flattens them first.
inline constexpr int kMaxConfinedDepth = 256;

struct FileOwner {
  uid_t uid;
  gid_t gid;
};

// One entry of a directory with its lstat data (a symlink is described, not
// followed).
struct EntryStat {
  std::string name;
  struct stat st;
};

// Called by ConfinedDir::WalkDirs once per directory reached: `dir` is its
// path relative to the root ("" for the root itself), `entries` its entries
// sorted by name. Returns the names among them of the directories to walk next.
using DirVisitor =
    std::function<Result<std::vector<std::string>>(const std::string& dir, const std::vector<EntryStat>& entries)>;

// A directory (the root of a copy) that operations are confined to.
class ConfinedDir {
 public:
  // `path` must be an existing directory and not a symlink. It is trusted: the
  // caller chose it (a pool directory), not the code inside the copy.
  static Result<ConfinedDir> Open(const std::string& path);

  const std::string& path() const { return path_; }

  // Removes `relative` (a file, symlink or whole tree; a trailing '/' is
  // allowed); OK when it does not exist. Unwritable directories are made
  // writable first. Trees of any depth are removed: deeper than
  // kMaxConfinedDepth, a subtree is first moved up to the root.
  Status RemoveAll(std::string_view relative) const;

  // Walks the whole tree except the top-level entry `skip_top` (may be empty):
  // unlinks every symlink, FIFO, socket and device node (a checkout would
  // write through a symlink and block forever opening a FIFO) and gives every
  // directory owner rwx. FailedPrecondition when the tree is deeper than
  // kMaxConfinedDepth.
  Status UnlinkSpecialEntriesAndOpenDirs(std::string_view skip_top) const;

  // Gives the root and everything below it to uid:gid (fchownat with
  // AT_SYMLINK_NOFOLLOW; entries already right are not touched).
  Status ChownAll(uid_t uid, gid_t gid) const;

  // Gives `relative` and every directory on the way to it (not the root) to
  // uid:gid, never following a symlink (a symlinked component is itself
  // given and the walk stops there). OK when a component does not exist.
  Status ChownPath(std::string_view relative, uid_t uid, gid_t gid) const;

  // Reads regular file `relative` (never through a symlink). NotFound when it
  // is missing, FailedPrecondition when it is not a regular file,
  // ResourceExhausted when it holds more than `max_bytes`.
  Result<std::string> ReadFile(std::string_view relative, std::size_t max_bytes) const;

  // lstat of `relative`. NotFound when it is missing or a parent component is
  // not a real directory (a symlink is never followed to look further).
  Result<struct stat> Lstat(std::string_view relative) const;

  // Target of symlink `relative` (at most `max_bytes` of it; longer is
  // ResourceExhausted). FailedPrecondition when it is not a symlink.
  Result<std::string> ReadLink(std::string_view relative, std::size_t max_bytes) const;

  // Walks the tree top-down (see DirVisitor), each directory opened with
  // O_NOFOLLOW from its parent's descriptor. A directory that cannot be
  // opened any more (replaced meanwhile) and anything deeper than
  // kMaxConfinedDepth are skipped, not errors: what the walk reports is what
  // a caller may act on, never a reason to fail.
  Status WalkDirs(const DirVisitor& visit) const;

  // Creates directory `relative`; its parent must exist. AlreadyExists if it does.
  Status MakeDir(std::string_view relative, mode_t mode) const;

  // Creates file `relative` (which must not exist; its parent must) holding
  // `content`. With `mtime`, sets the file's mtime (and atime) to it; with
  // `owner`, gives the file to it.
  Status WriteNewFile(std::string_view relative, std::string_view content, mode_t mode,
                      const struct timespec* mtime = nullptr, std::optional<FileOwner> owner = std::nullopt) const;

 private:
  ConfinedDir(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  // Opens the directory holding the last component of `relative` and returns
  // it with that last component in `*leaf`.
  Result<UniqueFd> OpenParent(std::string_view relative, std::string* leaf) const;

  std::string path_;
  UniqueFd fd_;
};

// Removes the tree at `path` (any type, OK if missing) without following any
// symlink below the parent of `path`. The parent itself is trusted.
Status RemoveTreeConfined(const std::string& path);

}  // namespace seragen::repo::internal
