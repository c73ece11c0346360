// Internal to the repo module: who owns a working copy's files.
//
// As root, the sandbox runs a rollout's commands under its slot's uid, so the
// copy it works in must belong to that uid, and to no other copy's uid. A
// copy keeps the owner it was last given: the pool remembers it, gives the
// copy back to that owner's slot when it can (working_copy_pool.cc), and
// after a restore gives the few paths the restore rewrote (as root) back to
// that owner. So handing a copy to the owner it already has touches only
// what root wrote since (the disposable .git, /tmp, the restored paths), and
// only a change of owner walks the whole copy.
#pragma once

#include <string>
#include <vector>

#include "seragen/base/status.h"
#include "seragen/repo/copy_paths.h"

namespace seragen::repo::internal {

// Handing a copy whose every entry already belongs to uid:gid, except what
// root wrote since it was given to them (the work tree's `.git`, the lease's
// `/tmp`, the root directory itself), back to them: those alone are given.
Status AdoptKnownOwner(const CopyPaths& copy, unsigned uid, unsigned gid);

// Gives `paths` (relative to the work tree, as a restore reports them) and the
// directories leading to them to uid:gid, and takes the new owner and ctime
// into the authoritative index's stat cache for those paths.
Status GiveRestoredPaths(const CopyPaths& copy, const std::vector<std::string>& paths, unsigned uid, unsigned gid);

}  // namespace seragen::repo::internal
