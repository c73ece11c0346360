// Internal to the repo module: the HEAD commit of a repository embedded in a
// working copy's work tree (which `git add` records as a gitlink).
//
// The embedded repository is agent-written, so it is never opened with
// libgit2 (that would read its config, follow a `gitdir:` file or
// `commondir` to any host repository, and honour config includes). Instead
// its `.git/HEAD` and the ref it names are read as plain files through
// ConfinedDir: `.git` must be a real directory inside the copy, refs are
// followed only below `.git/refs/` (loose, then `packed-refs`), at most 5
// symbolic levels, and every file is size-bounded.
#pragma once

#include <git2.h>

#include <optional>
#include <string>

#include "repo/confined_fs.h"

namespace seragen::repo::internal {

// HEAD commit id of the repository whose work tree is `relative_dir` (relative
// to `root`), or nullopt when it has none this way (no `.git` directory, an
// unborn branch, a `gitdir:` file, anything malformed).
std::optional<git_oid> EmbeddedRepositoryHead(const ConfinedDir& root, const std::string& relative_dir);

}  // namespace seragen::repo::internal
