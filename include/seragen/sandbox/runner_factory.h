// One entry point for the composition root: the configured sandbox mode to
// a ready CommandRunner for one working copy.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/sandbox/command_runner.h"
#include "seragen/sandbox/sandbox_options.h"

namespace seragen::sandbox {

enum class SandboxMode {
  kBwrap,  // "bwrap" (default): BwrapRunner
  kNone,   // "none": UnconfinedRunner, an explicit and loudly warned opt-in
};

// kInvalidArgument naming the accepted values for anything but "bwrap"/"none".
Result<SandboxMode> ParseSandboxMode(std::string_view text);

// Who owns the copy when a runner is created for it.
enum class CopyOwnership {
  kChown,  // unknown: every entry is given to the slot's uid (PrepareWorkingCopy walks the copy)
  kGiven,  // already given to the slot's uid:gid (repo::WorkingCopyLease::GiveTo): no walk
};

// Prepares `host_copy` for options.uid (PrepareWorkingCopy; with kGiven only
// its ancestors are checked, CheckCopyReachable) and creates the runner for
// `mode`. Call once per rollout, after acquiring the copy.
Result<std::unique_ptr<CommandRunner>> CreateRunner(SandboxMode mode, const SandboxOptions& options,
                                                    const std::string& host_copy,
                                                    CopyOwnership ownership = CopyOwnership::kChown);

}  // namespace seragen::sandbox
