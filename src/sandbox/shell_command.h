// How a CommandRequest becomes a shell invocation, and how the shell's
// report comes back. Shared by the real runners.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/sandbox/command_runner.h"
#include "seragen/sandbox/process.h"
#include "seragen/sandbox/sandbox_options.h"

namespace seragen::sandbox {

// `shell -c COMMAND` when no state is involved; otherwise a fixed wrapper
// script that restores the exported variables and the directory, runs the
// command with `eval` and (when capture_state) writes "S" to fd 3 at once,
// then "CWD\0DROPPED\0EXPORTS" on exit, carrying only exported variables
// within the kCarried* bounds. The command's own positional parameters are
// empty either way.
std::vector<std::string> BuildShellArgv(const std::string& shell, const CommandRequest& request);

// True when the fd-3 report shows that the wrapper shell started (so any
// failure after that is the command's own, never the sandbox's).
bool ShellStarted(std::string_view report);

// Parses the fd-3 report; nullopt when absent or malformed. An export text
// over kCarriedEnvMaxBytes, or a report cut at the side-channel cap
// (`overflowed`), keeps the directory and carries no variable
// (dropped_exports = "*").
std::optional<ShellState> ParseShellState(std::string_view report, bool overflowed = false);

// ProcessSpec fields that come from RunLimits (timeout, output split, kill
// threshold, rlimits).
void ApplyRunLimits(const RunLimits& limits, ProcessSpec* spec);

// What both real runners set alike: ApplyRunLimits, the fd-3 side channel
// (request.capture_state), the slot cgroup and, when `switch_uid`, the slot's
// uid and gid. Without the switch no process limit is set: it would count
// every process of the calling user.
void ApplyRunnerSettings(const SandboxOptions& options, const CommandRequest& request, const RunLimits& limits,
                         bool switch_uid, ProcessSpec* spec);

// kInvalidArgument unless `host_copy` is an absolute path to an existing
// directory (the working copy a runner serves).
Status CheckHostCopy(const std::string& host_copy);

// Converts a finished process into a CommandResult: output repaired to valid
// UTF-8 and cut to limits.output_cap_chars characters (the first 3/4 and the
// last 1/4, never inside a character), state parsed when requested.
CommandResult ToCommandResult(ProcessOutcome outcome, bool capture_state, const RunLimits& limits);

// kInvalidArgument when the command is empty of bytes we can pass (contains
// NUL) or longer than kMaxCommandBytes.
Status CheckCommandText(std::string_view command);

}  // namespace seragen::sandbox
