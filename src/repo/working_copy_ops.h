// Internal to the repo module: creating, restoring and inspecting one
// alternates-based working copy (no pool bookkeeping).
//
// A copy is two directories (see CopyPaths): the work tree, which the sandbox
// can write, and the authoritative git directory beside it, which only host
// code touches. Every host-side delete or write inside the work tree goes
// through ConfinedDir (never follows a symlink, never leaves the copy).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/status.h"
#include "seragen/repo/copy_paths.h"

namespace seragen::repo::internal {

// A new copy with nothing checked out: `copy.git_dir` initialised bare with
// alternates naming `source_objects_dir`, and an empty `copy.work_tree`.
Status MakeEmptyCopy(const CopyPaths& copy, const std::string& source_objects_dir);

// Builds a copy at `copy` (whose directories must not exist): a bare-style git
// directory with an alternates file pointing at `source_objects_dir`, a
// checkout of `base_commit` into the work tree, HEAD detached, and the
// disposable `.git` in the work tree (ResetAgentGitDir). Works in sibling
// temporary directories renamed into place at the end, so a crash never
// leaves a half-built copy at those paths.
Status CreateWorkingCopy(const CopyPaths& copy, std::string_view base_commit, const std::string& source_objects_dir);

// Rewrites `git_dir`/objects/info/alternates when it does not say `source_objects_dir`.
Status EnsureAlternates(const std::string& git_dir, const std::string& source_objects_dir);

// Replaces whatever `copy.work_tree`/.git is (directory, file, symlink) with a
// fresh git directory for the agent's own git commands: HEAD detached at
// `base_commit`, the alternates, a fixed config and a copy of the
// authoritative index (mtime kept, so racy-git checks match). Host code never
// opens it; it exists so `git status`/`git diff` work inside the sandbox.
Status ResetAgentGitDir(const CopyPaths& copy, std::string_view base_commit, const std::string& source_objects_dir);

// Copies the authoritative index into `copy.work_tree`/.git/index (replacing
// it, mtime kept) and gives it to uid:gid when `chown` is set.
Status CopyIndexToAgentGitDir(const CopyPaths& copy, bool chown, unsigned uid, unsigned gid);

// What a restore wrote as root in the work tree: the whole tree (a full
// checkout), or only `paths` (relative, with the directories leading to them).
struct RestoredScope {
  bool whole = true;
  std::vector<std::string> paths;
};

// Restores a copy to `base_commit` in place: checks the git directory, repairs
// the alternates file, unlinks symlinks in the work tree, then removes/checks
// out only what a status walk reports (falling back to a full forced
// checkout). With `verify`, confirms the touched paths are clean. The work
// tree's `.git` is left alone (ResetAgentGitDir replaces it on acquire).
// `scope` (may be null) says what was rewritten, also when it fails.
Status RestoreCopy(const CopyPaths& copy, std::string_view base_commit, const std::string& source_objects_dir,
                   bool verify, RestoredScope* scope = nullptr);

// FailedPrecondition unless `git_dir` is a directory and none of the metadata
// files a restore writes (HEAD, index, logs/HEAD, alternates, ...) is a
// symlink, and the work tree is a real directory.
Status CheckCopyIsReal(const CopyPaths& copy);

// Replaces `path` with `content` (temp file + rename, no fsync: pool metadata
// is re-derived after a crash, so durability is not needed). For files outside
// any work tree only.
Status WriteFileReplacing(const std::string& path, std::string_view content);

// Removes a directory tree even when code inside it made parts unwritable,
// never following a symlink below the parent of `path`.
Status ForceRemoveAll(const std::string& path);

}  // namespace seragen::repo::internal
