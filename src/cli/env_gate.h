// The environment health gate of `seragen run`: before any model call, each
// repository's environment of this shard is built (or taken from the cache)
// and its environment.check is run in a rollout's sandbox. A setup or check
// that fails stops the run with a message naming the profile, the setup log
// and the key to change.
#pragma once

#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/callgraph/plan.h"
#include "seragen/config/config.h"
#include "seragen/pipeline/run_workspace.h"

namespace seragen::cli {

// OK when every repository of `tasks` with an environment (setup or check)
// built it and passed its check; else kFailedPrecondition whose message says
// which repository and profile, what failed (the check's last output lines),
// the setup log `env_log_dir` holds and what to change in `config_path`.
// Logs each check it ran with its duration.
Status CheckEnvironmentsBeforeRun(const config::Config& cfg, const std::string& config_path,
                                  const std::vector<callgraph::PlannedTask>& tasks,
                                  pipeline::RunWorkspaceFactory& workspaces, const std::string& env_log_dir);

}  // namespace seragen::cli
