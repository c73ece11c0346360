#include "seragen/sandbox/unconfined_runner.h"

#include <unistd.h>

#include <mutex>

#include "sandbox/shell_command.h"
#include "seragen/base/log.h"
#include "seragen/sandbox/process.h"

namespace seragen::sandbox {

std::string UnconfinedWarningText() {
  return "sandbox: none -- agent commands run UNCONFINED on this host: they can read every "
         "file the sandbox uid can read, write outside the working copy where permissions "
         "allow, and use the network. Only timeouts, the output cap and rlimits apply. Use "
         "this only on a disposable machine.";
}

Result<std::unique_ptr<UnconfinedRunner>> UnconfinedRunner::Create(const SandboxOptions& options,
                                                                   const std::string& host_copy) {
  SG_RETURN_IF_ERROR(CheckHostCopy(host_copy));
  if (options.shell.empty() || options.shell[0] != '/') {
    return InvalidArgumentError("sandbox.shell must be an absolute path, got \"" + options.shell + "\"");
  }
  static std::once_flag warned;
  std::call_once(warned, [] { log::Logger("sandbox").Warn("{}", UnconfinedWarningText()); });
  return std::unique_ptr<UnconfinedRunner>(new UnconfinedRunner(options, host_copy));
}

Result<CommandResult> UnconfinedRunner::Run(const CommandRequest& request, const RunLimits& limits) {
  SG_RETURN_IF_ERROR(CheckCommandText(request.command));
  ProcessSpec spec;
  spec.executable = options_.shell;
  spec.argv = BuildShellArgv(options_.shell, request);
  const auto env = options_.env.empty() ? DefaultSandboxEnv() : options_.env;
  for (const auto& [name, value] : env) spec.env.push_back(name + "=" + value);
  spec.cwd = host_copy_;
  ApplyRunnerSettings(options_, request, limits, ::geteuid() == 0 && options_.uid != 0, &spec);
  SG_ASSIGN_OR_RETURN(ProcessOutcome outcome, RunProcess(spec));
  return ToCommandResult(std::move(outcome), request.capture_state, limits);
}

}  // namespace seragen::sandbox
