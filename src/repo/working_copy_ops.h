// Internal to the repo module: creating, restoring and inspecting one
// alternates-based working copy (no pool bookkeeping).
#pragma once

#include <string>
#include <string_view>

#include "seragen/base/status.h"

namespace seragen::repo::internal {

// Builds a copy at `copy_path` (which must not exist): init, alternates file
// pointing at `source_objects_dir`, checkout of `base_commit`, HEAD detached.
// Works in a sibling temporary directory renamed into place at the end, so a
// crash never leaves a half-built copy at `copy_path`.
Status CreateWorkingCopy(const std::string& copy_path, std::string_view base_commit,
                         const std::string& source_objects_dir);

// Rewrites objects/info/alternates when it does not say `source_objects_dir`
// (code in the copy may have edited or deleted it).
Status EnsureAlternates(const std::string& copy_path, const std::string& source_objects_dir);

// Restores a copy to `base_commit` in place: checks that .git is a real
// directory, repairs the alternates file, unlinks symlinks in the work tree,
// then removes/checks out only what a status walk reports (falling back to a
// full forced checkout). With `verify`, confirms the touched paths are clean.
Status RestoreCopy(const std::string& copy_path, std::string_view base_commit,
                   const std::string& source_objects_dir, bool verify);

// FailedPrecondition unless `copy_path`/.git is a directory and none of the
// metadata files a restore writes (HEAD, index, logs/HEAD, alternates, ...) is
// a symlink.
Status CheckGitDirIsReal(const std::string& copy_path);

// Replaces `path` with `content` (temp file + rename, no fsync: pool metadata
// is re-derived after a crash, so durability is not needed).
Status WriteFileReplacing(const std::string& path, std::string_view content);

// Removes a directory tree even when code inside it made parts unwritable.
Status ForceRemoveAll(const std::string& path);

}  // namespace seragen::repo::internal
