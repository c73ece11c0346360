#include "env/program_runner.h"

#include <cstdlib>

#include "seragen/sandbox/process.h"

namespace seragen::env {
namespace {

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

}  // namespace

Result<ProgramOutput> HostProgramRunner::Run(const ProgramRequest& request) {
  if (request.argv.empty()) return InvalidArgumentError("no program to run");
  const std::string path = EnvOr("PATH", "/usr/local/bin:/usr/bin:/bin");
  Result<std::string> exe = sandbox::FindExecutable(request.argv.front(), path);
  if (!exe.ok()) return NotFoundError(request.argv.front() + " is not installed (not found in PATH)");
  std::map<std::string, std::string> env = {{"PATH", path}, {"HOME", EnvOr("HOME", "/")}, {"LC_ALL", "C.UTF-8"}};
  for (const auto& [k, v] : request.env) env[k] = v;
  sandbox::ProcessSpec spec;
  // RunProcess merges stdout and stderr; a shell moves stderr to the side
  // channel (fd 3) so a manifest on stdout never mixes with warnings.
  spec.executable = "/bin/sh";
  spec.argv = {"sh", "-c", "exec \"$0\" \"$@\" 2>&3 3>&-", *exe};
  spec.argv.insert(spec.argv.end(), request.argv.begin() + 1, request.argv.end());
  for (const auto& [k, v] : env) spec.env.push_back(k + "=" + v);
  spec.timeout = request.timeout;
  spec.head_bytes = request.max_output_bytes;
  spec.tail_bytes = 0;
  spec.side_channel = true;
  spec.side_channel_cap = 64 * 1024;
  SG_ASSIGN_OR_RETURN(sandbox::ProcessOutcome outcome, sandbox::RunProcess(spec));
  ProgramOutput out;
  out.exit_code = outcome.exit_code;
  out.timed_out = outcome.timed_out;
  out.out = std::move(outcome.head);
  out.out_truncated = outcome.total_bytes > request.max_output_bytes || outcome.output_limit_killed;
  out.err = std::move(outcome.side_channel);
  return out;
}

}  // namespace seragen::env
