#include "seragen/sandbox/runner_factory.h"

#include "seragen/sandbox/bwrap_runner.h"
#include "seragen/sandbox/self_check.h"
#include "seragen/sandbox/unconfined_runner.h"

namespace seragen::sandbox {

Result<SandboxMode> ParseSandboxMode(std::string_view text) {
  if (text == "bwrap") return SandboxMode::kBwrap;
  if (text == "none") return SandboxMode::kNone;
  return InvalidArgumentError("sandbox must be \"bwrap\" or \"none\", got \"" + std::string(text) + "\"");
}

Result<std::unique_ptr<CommandRunner>> CreateRunner(SandboxMode mode, const SandboxOptions& options,
                                                    const std::string& host_copy, CopyOwnership ownership) {
  SG_RETURN_IF_ERROR(ownership == CopyOwnership::kGiven ? CheckCopyReachable(host_copy, options.uid, options.gid)
                                                        : PrepareWorkingCopy(host_copy, options.uid, options.gid));
  if (mode == SandboxMode::kNone) {
    SG_ASSIGN_OR_RETURN(auto runner, UnconfinedRunner::Create(options, host_copy));
    return std::unique_ptr<CommandRunner>(std::move(runner));
  }
  SG_ASSIGN_OR_RETURN(auto runner, BwrapRunner::Create(options, host_copy));
  return std::unique_ptr<CommandRunner>(std::move(runner));
}

}  // namespace seragen::sandbox
