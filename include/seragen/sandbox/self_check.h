// Startup checks: fail early, with a message that says what to fix, rather
// than at the first agent command.
#pragma once

#include <string>

#include "seragen/base/result.h"
#include "seragen/sandbox/sandbox_options.h"

namespace seragen::sandbox {

// Runs a probe command through a real BwrapRunner over a scratch working
// copy and checks that it ran as options.uid, could write the copy and
// could not write the rest of the filesystem. OK when the sandbox works;
// kFailedPrecondition otherwise, naming the cause (bwrap missing, user
// namespaces disabled, uid switch impossible...) and the way out.
Status SelfCheck(const SandboxOptions& options);

// Makes `host_copy` usable by a sandbox running as uid/gid: every entry
// below it (symlinks themselves, not their targets) is chowned to uid/gid
// (requires root; a no-op when the caller is not root and already owns the
// files), and each ancestor directory must be searchable by that uid.
// kPermissionDenied naming the directory otherwise. Files created inside
// the sandbox appear on the host owned by uid; root can still read and
// reset them.
Status PrepareWorkingCopy(const std::string& host_copy, uid_t uid, gid_t gid);

// PrepareWorkingCopy without the chown: `host_copy` (absolute) exists and
// each of its ancestors is searchable by uid/gid. For a copy already given to
// that uid, so nothing below it is walked.
Status CheckCopyReachable(const std::string& host_copy, uid_t uid, gid_t gid);

}  // namespace seragen::sandbox
