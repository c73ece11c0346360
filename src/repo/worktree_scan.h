// Internal to the repo module: which paths of a working copy `git add -A`
// would stage, found by our own confined walk of the work tree, and the work
// tree's rules files (`.gitignore`, `.gitattributes`) made safe for libgit2.
//
// libgit2 reads rules files from its work directory by path: it follows
// symlinks, blocks opening a FIFO and reads any size, as root. So the diff
// never lets libgit2 walk the copy. This walk lists the work tree through
// ConfinedDir (lstat data, nothing followed), compares tracked entries with
// the index's stat cache, and decides ignore rules with libgit2 against a
// RulesShadow: a private directory that holds only copies of the rules files
// that are regular files of at most kMaxRulesFileBytes, read without
// following a link and without blocking. Any other rules file gives no
// rules, as git (2.32 and later) treats a symlinked one. libgit2 takes the
// shadow as its work directory, so attribute lookups (filters, diff drivers)
// read the same copies.
#pragma once

#include <git2.h>
#include <time.h>

#include <cstddef>
#include <string>
#include <vector>

#include "repo/confined_fs.h"
#include "seragen/base/result.h"

namespace seragen::repo::internal {

// Larger rules files give no rules (git has no such cap; real ones are far
// smaller, and an agent's could otherwise make root read hundreds of MB).
inline constexpr std::size_t kMaxRulesFileBytes = 1 << 20;

// A new private directory for rules copies, removed with the object.
class RulesShadow {
 public:
  // Creates it below `parent` (a host-only directory).
  static Result<RulesShadow> Create(const std::string& parent);
  ~RulesShadow();
  RulesShadow(RulesShadow&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  RulesShadow& operator=(RulesShadow&&) = delete;
  RulesShadow(const RulesShadow&) = delete;

  // The directory, ending in '/'.
  const std::string& path() const { return path_; }

  // Copies work-tree file `relative` (a rules file) into the shadow when it is
  // a regular file of at most kMaxRulesFileBytes; otherwise leaves it out.
  void CopyFrom(const ConfinedDir& root, const std::string& relative) const;

 private:
  explicit RulesShadow(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// One path for the stager.
struct ChangedPath {
  std::string path;  // an embedded repository's directory ends in '/'
  // A tracked file whose stat data differs from the cache although its type,
  // mode and size do not: it may be unchanged (hash it before charging it).
  bool maybe_unchanged = false;
};

struct WorkTreeScanInput {
  const ConfinedDir* root;      // the work tree
  git_index* index;             // the authoritative index (stat cache), read only
  git_repository* repo;         // its work directory is `shadow`
  const RulesShadow* shadow;    // filled by the scan
  struct timespec index_mtime;  // of the index file: entries not older are racy
};

// Walks the work tree: copies its usable rules files into the shadow and
// returns, sorted by path, the tracked paths that may have changed (deleted
// ones included) and the untracked, not ignored regular files, symlinks and
// embedded repositories. `.git` entries are skipped at every level. Ignored
// untracked directories are not entered.
Result<std::vector<ChangedPath>> ScanWorkTree(const WorkTreeScanInput& in);

}  // namespace seragen::repo::internal
