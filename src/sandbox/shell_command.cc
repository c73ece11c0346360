#include "seragen/sandbox/shell_command.h"

#include "seragen/base/utf8.h"

namespace seragen::sandbox {
namespace {

// Positional parameters: $1 command, $2 directory, $3 `export -p` text,
// $4 "1" to report the state on exit. They are moved into variables and
// cleared before the command runs.
constexpr std::string_view kWrapper = R"SH(__sg_cmd=$1; __sg_cwd=$2; __sg_env=$3; __sg_cap=$4; set --
if [ -n "$__sg_env" ]; then builtin eval "$__sg_env" >/dev/null 2>&1; fi
if [ -n "$__sg_cwd" ]; then builtin cd -- "$__sg_cwd" >/dev/null 2>&1; fi
if [ "$__sg_cap" = 1 ]; then trap '{ builtin printf "%s\0" "$PWD"; builtin export -p; } >&3 2>/dev/null' EXIT; fi
unset __sg_cwd __sg_env __sg_cap
builtin eval "unset __sg_cmd
$__sg_cmd"
)SH";

}  // namespace

std::vector<std::string> BuildShellArgv(const std::string& shell, const CommandRequest& request) {
  if (!request.state && !request.capture_state) return {shell, "-c", request.command};
  std::string cwd = request.state ? request.state->cwd : "";
  std::string env = request.state ? request.state->exported_env : "";
  return {shell, "-c", std::string(kWrapper), "seragen-shell", request.command, cwd, env,
          request.capture_state ? "1" : "0"};
}

std::optional<ShellState> ParseShellState(std::string_view report) {
  std::size_t nul = report.find('\0');
  if (nul == std::string_view::npos || nul == 0 || report[0] != '/') return std::nullopt;
  ShellState state;
  state.cwd = std::string(report.substr(0, nul));
  state.exported_env = std::string(report.substr(nul + 1));
  return state;
}

void ApplyRunLimits(const RunLimits& limits, ProcessSpec* spec) {
  spec->timeout = limits.timeout;
  const std::size_t cap = std::max<std::size_t>(limits.output_cap_bytes, 64);
  spec->tail_bytes = cap / 4;
  spec->head_bytes = cap - spec->tail_bytes;
  spec->kill_after_bytes = std::max<std::uint64_t>(limits.output_kill_bytes, cap);
  spec->limits = limits.resources;
}

CommandResult ToCommandResult(ProcessOutcome outcome, bool capture_state) {
  CommandResult r;
  r.exit_code = outcome.exit_code;
  r.killed_by_signal = outcome.term_signal;
  r.timed_out = outcome.timed_out;
  r.output_limit_killed = outcome.output_limit_killed;
  r.output = RepairUtf8(outcome.head);
  r.output_tail = RepairUtf8(outcome.tail);
  r.omitted_bytes = outcome.omitted_bytes;
  r.total_output_bytes = outcome.total_bytes;
  r.duration = outcome.duration;
  if (capture_state && !outcome.side_channel_overflow && !outcome.timed_out &&
      !outcome.output_limit_killed) {
    r.final_state = ParseShellState(outcome.side_channel);
  }
  return r;
}

Status CheckCommandText(std::string_view command) {
  if (command.find('\0') != std::string_view::npos) {
    return InvalidArgumentError("command contains a NUL byte");
  }
  if (command.size() > kMaxCommandBytes) {
    return InvalidArgumentError("command is " + std::to_string(command.size()) +
                                " bytes long; the limit is " + std::to_string(kMaxCommandBytes));
  }
  return Status::Ok();
}

}  // namespace seragen::sandbox
