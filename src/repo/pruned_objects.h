// Internal to the repo module: the object store a pool's copies read.
//
// A working copy must hold only what its task's base commit reaches: no later
// history, no other branches or tags (an agent reading them would see the
// answer, and another run's private work). So a pool's copies do not borrow
// the source repository's object directory; they borrow one pack made from a
// revision walk of the base commit (every commit it reaches, their trees and
// blobs), built once per (repository, commit) beside the pool's copies.
#pragma once

#include <string>
#include <string_view>

#include "seragen/base/result.h"

namespace seragen::repo::internal {

// `pool_directory`/objects holding exactly the objects `base_commit` (40-hex)
// reaches in the repository at `source_git_dir`, built on first use: a pack
// written into a temporary sibling and renamed into place under an flock on
// `pool_directory`/objects.lock, so concurrent processes build it once and
// never see half of it. Returns its absolute path.
Result<std::string> EnsurePrunedObjects(const std::string& source_git_dir, std::string_view base_commit,
                                        const std::string& pool_directory);

}  // namespace seragen::repo::internal
