// `seragen run` and `seragen plan`: the composition root. Turns a loaded
// config into every module's objects, runs one shard through the pipeline,
// and reports on stdout/stderr. The only place that knows every module.
#pragma once

#include <string>

#include <optional>

#include "seragen/base/log.h"
#include "seragen/config/loader.h"
#include "seragen/llm/http_chat_client.h"
#include "seragen/pipeline/run_workspace.h"
#include "seragen/runview/run_result.h"
#include "seragen/sandbox/slot_uids.h"

namespace seragen::cli {

struct RunFlags {
  std::string shard;  // "K/N"; empty = config run.shard, then Slurm variables, then 0/1
  bool allow_config_change = false;
};

// Runs one shard; ExitCodeFor (exit_codes.h) maps the result to the exit
// code. Errors are printed to stderr, the final progress line to stdout.
// Installs SIGINT/SIGTERM handlers while the shard runs (StopSignals).
runview::RunResult RunCommand(const config::LoadedConfig& loaded, const RunFlags& flags);

// Builds (or reuses) RUN_DIR/tasks.jsonl and prints a summary; no model
// calls. Returns the exit code.
int PlanCommand(const config::LoadedConfig& loaded, bool list_functions = false);

// `seragen env check`: prepares (or reuses) the environment of `repo_name`
// (empty = the first repository) and runs its environment.check in the
// sandbox a rollout would get; prints root, mounts, variables, output and
// exit status. Exit 0 when the check command succeeded, 1 when it or the
// setup failed, 2 for bad input.
int EnvCheckCommand(const config::LoadedConfig& loaded, const std::string& repo_name);

// Wiring shared by `seragen run` and `seragen eval`:
// The workspaces' options for a run whose working copies live under
// `run_dir`. As root, every slot runs as its own uid: `uid_lease` receives
// the locks (held until it is destroyed), and whatever a crashed earlier
// run left behind under those uids is killed.
Result<pipeline::WorkspaceOptions> WorkspaceFor(const config::Config& cfg, const std::string& run_dir,
                                                std::optional<sandbox::SlotUidLease>& uid_lease,
                                                const log::Logger& logger);
// The chat client's options: endpoints, the model (llm.model or the first
// listed), and each endpoint's server profile.
Result<llm::ChatClientOptions> ChatOptionsFor(const config::Config& cfg, std::string& model, const log::Logger& logger);

}  // namespace seragen::cli
