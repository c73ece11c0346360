#include "sandbox/shell_command.h"

#include <sys/stat.h>

#include "seragen/base/utf8.h"
#include "seragen/base/utf8_chars.h"

namespace seragen::sandbox {
namespace {

// Positional parameters: $1 command, $2 directory, $3 `export -p` text,
// $4 "1" to report the state on exit. They are moved into variables and
// cleared before the command runs. With $4 = 1 the report (fd 3) is "S" as
// soon as the shell runs (so a start failure of the sandbox can be told
// from a command's output), then on exit "PWD\0DROPPED\0" and `export -p`,
// after un-exporting the variables past the @VAR@/@COUNT@/@TOTAL@ bounds
// (DROPPED lists their names).
constexpr std::string_view kWrapperTemplate = R"SH(__sg_cmd=$1; __sg_cwd=$2; __sg_env=$3; __sg_cap=$4; set --
if [ "$__sg_cap" = 1 ]; then builtin printf S >&3 2>/dev/null; trap 'builtin set +eu; builtin unset IFS; __sg_d=; __sg_c=0; __sg_t=0
for __sg_v in $(builtin compgen -e); do __sg_x=${!__sg_v}; __sg_l=$(( ${#__sg_v} + ${#__sg_x} ))
if [ "$__sg_l" -gt @VAR@ ] || [ "$__sg_c" -ge @COUNT@ ] || [ $(( __sg_t + __sg_l )) -gt @TOTAL@ ]; then __sg_d="$__sg_d $__sg_v"; builtin export -n -- "$__sg_v"; else __sg_c=$(( __sg_c + 1 )); __sg_t=$(( __sg_t + __sg_l )); fi
done
{ builtin printf "%s\0%s\0" "$PWD" "${__sg_d# }"; builtin export -p; } >&3 2>/dev/null' EXIT; fi
if [ -n "$__sg_env" ]; then builtin eval "$__sg_env" >/dev/null 2>&1; fi
if [ -n "$__sg_cwd" ]; then builtin cd -- "$__sg_cwd" >/dev/null 2>&1; fi
unset __sg_cwd __sg_env __sg_cap
builtin eval "unset __sg_cmd
$__sg_cmd"
)SH";

constexpr std::size_t kMaxUtf8Bytes = 4;  // bytes of UTF-8's longest character

// The output cap in characters: the first 3/4 kept, then the last 1/4.
struct OutputSplit {
  std::size_t head_chars, tail_chars;
};
OutputSplit SplitOutputCap(const RunLimits& limits) {
  const std::size_t cap = std::max<std::size_t>(limits.output_cap_chars, 64);
  return {cap - cap / 4, cap / 4};
}

// Cuts repaired output to the cap in characters, on character boundaries.
// The capture kept up to 4 bytes per character, so it holds at least the
// characters kept here; the bytes cut are added to omitted_bytes.
void CutToChars(const RunLimits& limits, CommandResult* r) {
  const OutputSplit split = SplitOutputCap(limits);
  std::string& head = r->output;
  std::string& tail = r->output_tail;
  if (tail.empty() && Utf8CharCount(head) <= split.head_chars + split.tail_chars) return;
  if (tail.empty()) {  // the capture held the whole output: its end is the tail
    const std::size_t head_bytes = Utf8PrefixBytes(head, split.head_chars);
    tail = head.substr(head_bytes);
    head.resize(head_bytes);
  }
  const std::size_t head_bytes = Utf8PrefixBytes(head, split.head_chars);
  const std::size_t tail_start = Utf8SuffixStart(tail, split.tail_chars);
  r->omitted_bytes += (head.size() - head_bytes) + tail_start;
  head.resize(head_bytes);
  tail.erase(0, tail_start);
}

void ReplaceAll(std::string* s, std::string_view what, const std::string& with) {
  for (std::size_t at = s->find(what); at != std::string::npos; at = s->find(what, at + with.size())) {
    s->replace(at, what.size(), with);
  }
}

const std::string& Wrapper() {
  static const std::string script = [] {
    std::string s(kWrapperTemplate);
    ReplaceAll(&s, "@VAR@", std::to_string(kCarriedVarMaxChars));
    ReplaceAll(&s, "@COUNT@", std::to_string(kCarriedVarsMax));
    ReplaceAll(&s, "@TOTAL@", std::to_string(kCarriedEnvMaxChars));
    return s;
  }();
  return script;
}

}  // namespace

std::vector<std::string> BuildShellArgv(const std::string& shell, const CommandRequest& request) {
  if (!request.state && !request.capture_state) return {shell, "-c", request.command};
  std::string cwd = request.state ? request.state->cwd : "";
  std::string env = request.state ? request.state->exported_env : "";
  return {shell, "-c", Wrapper(), "seragen-shell", request.command, cwd, env, request.capture_state ? "1" : "0"};
}

bool ShellStarted(std::string_view report) { return !report.empty() && report[0] == 'S'; }

std::optional<ShellState> ParseShellState(std::string_view report, bool overflowed) {
  if (!ShellStarted(report)) return std::nullopt;
  report.remove_prefix(1);
  std::size_t nul = report.find('\0');
  if (nul == std::string_view::npos || nul == 0 || report[0] != '/') return std::nullopt;
  ShellState state;
  state.cwd = std::string(report.substr(0, nul));
  std::size_t nul2 = report.find('\0', nul + 1);
  if (overflowed || nul2 == std::string_view::npos || report.size() - nul2 - 1 > kCarriedEnvMaxBytes) {
    // Too big to carry (or cut off): keep the directory, carry no variable.
    state.dropped_exports = "*";
    return state;
  }
  state.dropped_exports = std::string(report.substr(nul + 1, nul2 - nul - 1));
  state.exported_env = std::string(report.substr(nul2 + 1));
  return state;
}

void ApplyRunLimits(const RunLimits& limits, ProcessSpec* spec) {
  spec->timeout = limits.timeout;
  const OutputSplit split = SplitOutputCap(limits);
  spec->tail_bytes = kMaxUtf8Bytes * split.tail_chars;
  spec->head_bytes = kMaxUtf8Bytes * split.head_chars;
  spec->kill_after_bytes = std::max<std::uint64_t>(limits.output_kill_bytes, spec->head_bytes + spec->tail_bytes);
  spec->limits = limits.resources;
}

void ApplyRunnerSettings(const SandboxOptions& options, const CommandRequest& request, const RunLimits& limits,
                         bool switch_uid, ProcessSpec* spec) {
  ApplyRunLimits(limits, spec);
  if (switch_uid) {
    spec->credentials = std::make_pair(options.uid, options.gid);
    spec->groups = options.groups;
  } else if (spec->limits) {
    spec->limits->max_processes = 0;
  }
  spec->side_channel = request.capture_state;
  spec->cgroup_procs = options.cgroup_procs;
}

Status CheckHostCopy(const std::string& host_copy) {
  struct stat st;
  if (host_copy.empty() || host_copy[0] != '/' || ::stat(host_copy.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return InvalidArgumentError("working copy must be an existing directory given by an absolute path, got \"" +
                                host_copy + "\"");
  }
  return Status::Ok();
}

CommandResult ToCommandResult(ProcessOutcome outcome, bool capture_state, const RunLimits& limits) {
  CommandResult r;
  r.exit_code = outcome.exit_code;
  r.killed_by_signal = outcome.term_signal;
  r.timed_out = outcome.timed_out;
  r.output_limit_killed = outcome.output_limit_killed;
  r.output = RepairUtf8(outcome.head);
  r.output_tail = RepairUtf8(outcome.tail);
  r.omitted_bytes = outcome.omitted_bytes;
  CutToChars(limits, &r);
  r.total_output_bytes = outcome.total_bytes;
  r.duration = outcome.duration;
  if (capture_state && !outcome.timed_out && !outcome.output_limit_killed) {
    r.final_state = ParseShellState(outcome.side_channel, outcome.side_channel_overflow);
  }
  return r;
}

Status CheckCommandText(std::string_view command) {
  if (command.find('\0') != std::string_view::npos) {
    return InvalidArgumentError("command contains a NUL byte");
  }
  if (command.size() > kMaxCommandBytes) {
    return InvalidArgumentError("command is " + std::to_string(command.size()) + " bytes long; the limit is " +
                                std::to_string(kMaxCommandBytes));
  }
  return Status::Ok();
}

}  // namespace seragen::sandbox
