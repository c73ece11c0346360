#include "seragen/sandbox/bwrap_runner.h"

#include <unistd.h>

#include <cstdlib>

#include "sandbox/shell_command.h"
#include "seragen/sandbox/process.h"

namespace seragen::sandbox {

Result<std::unique_ptr<BwrapRunner>> BwrapRunner::Create(const SandboxOptions& options, const std::string& host_copy) {
  SG_RETURN_IF_ERROR(ValidateSandboxOptions(options));
  SG_RETURN_IF_ERROR(CheckHostCopy(host_copy));
  const char* path = std::getenv("PATH");
  auto exe = FindExecutable(options.bwrap_path, path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  if (!exe.ok()) {
    return FailedPreconditionError("bubblewrap is not installed (" + exe.status().message() +
                                   "); install the 'bubblewrap' package, or set sandbox: none to run agent commands "
                                   "unconfined (not recommended)");
  }
  SG_ASSIGN_OR_RETURN(RootView view, ScanRootView(options.rootfs));
  SandboxOptions fitted = options;
  SG_RETURN_IF_ERROR(FitPathsToView(fitted, view));
  return std::unique_ptr<BwrapRunner>(new BwrapRunner(fitted, host_copy, std::move(exe).value(), std::move(view)));
}

BwrapRunner::BwrapRunner(SandboxOptions options, std::string host_copy, std::string bwrap_exe, RootView view)
    : options_(std::move(options)),
      host_copy_(std::move(host_copy)),
      bwrap_exe_(std::move(bwrap_exe)),
      view_(std::move(view)) {}

Result<CommandResult> BwrapRunner::Run(const CommandRequest& request, const RunLimits& limits) {
  SG_RETURN_IF_ERROR(CheckCommandText(request.command));
  ProcessSpec spec;
  spec.executable = bwrap_exe_;
  // Options (host paths) through fd 4, so /proc/1/cmdline inside shows none.
  BwrapInvocation invocation =
      BuildBwrapInvocation(options_, view_, host_copy_, "", BuildShellArgv(options_.shell, request), 4);
  spec.argv = std::move(invocation.argv);
  spec.fd4_input = std::move(invocation.args_data);
  spec.env.emplace_back("PATH=/usr/local/bin:/usr/bin:/bin");
  spec.cwd.assign(1, '/');  // (a plain `= "/"` trips GCC 12 bug 105329, -Wrestrict)
  // Without root we cannot switch to the slot uid.
  ApplyRunnerSettings(options_, request, limits, ::geteuid() == 0, &spec);
  SG_ASSIGN_OR_RETURN(ProcessOutcome outcome, RunProcess(spec));
  // bwrap reports its own setup failures with exit code 1 and "bwrap: ..."
  // before the command starts; surface them as infrastructure errors. Once
  // the wrapper shell has reported its start, that text is the command's.
  const bool started = request.capture_state && ShellStarted(outcome.side_channel);
  if (!started && outcome.exit_code == 1 && outcome.head.rfind("bwrap: ", 0) == 0 && outcome.total_bytes < 4096) {
    std::string message = "the sandbox failed to start: ";
    message.append(outcome.head);
    return UnavailableError(std::move(message));
  }
  return ToCommandResult(std::move(outcome), request.capture_state, limits);
}

}  // namespace seragen::sandbox
