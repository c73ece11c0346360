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

// Removes a directory tree even when code inside it made parts unwritable.
Status ForceRemoveAll(const std::string& path);

}  // namespace seragen::repo::internal
