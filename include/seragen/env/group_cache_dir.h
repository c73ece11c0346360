// Node-wide cache directories whose entries the sandbox's slot uids must
// reach (bwrap binds them after switching to the slot uid) and no other host
// user may enter: the environment cache (prefixes and image roots) and the
// Python bytecode cache.
//
// As root, one subtree per sandbox group (sandbox::SandboxGroup(uid_base),
// held by every slot process of a run): runs of another uid base on the node
// hold another group and keep their own subtree, so no run takes away the
// group another run's sandboxes need to reach their entries.
#pragma once

#include <sys/types.h>

#include <string>

#include "seragen/base/result.h"

namespace seragen::env {

// The cache directory made if missing and usable: a directory (not a link),
// as root root:`group` 0750 (group = the sandbox uids' group, which bwrap
// needs to reach an entry), otherwise this user's own, 0700. An error names
// why it is refused (a link, another owner).
Status GuardCacheDir(const std::string& dir, gid_t group);

// The directory a run whose sandbox uids hold `group` keeps its entries in.
// As root: `dir` itself root:root 0711 (traversable, not listable; refused if
// a link or another user's), and `dir`/group-<group> guarded by GuardCacheDir.
// Otherwise `dir` itself (GuardCacheDir).
Result<std::string> GuardGroupCacheDir(const std::string& dir, gid_t group);

}  // namespace seragen::env
