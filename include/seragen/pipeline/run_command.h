// `seragen run` and `seragen plan`: everything between a loaded config and a
// finished shard. This is where config::Config becomes module options.
#pragma once

#include <string>

#include "seragen/base/result.h"
#include "seragen/config/loader.h"
#include "seragen/llm/server_profile.h"
#include "seragen/pipeline/run_result.h"

namespace seragen::pipeline {

struct RunFlags {
  std::string shard;  // "K/N"; empty = config run.shard, then Slurm variables, then 0/1
  bool allow_config_change = false;
};

// The exit code of a second SIGINT/SIGTERM (the process ends at once; the
// journal is durable). Same value as cli::kExitInterrupted.
inline constexpr int kExitInterrupted = 75;

// Runs one shard; the CLI maps the result to the exit code
// (src/cli/exit_codes.h). Errors are printed to stderr.
RunResult RunCommand(const config::LoadedConfig& loaded, const RunFlags& flags);

// Builds (or reuses) RUN_DIR/tasks.jsonl and prints a summary; no model calls.
int PlanCommand(const config::LoadedConfig& loaded);

// The request settings written explicitly in `llm` ("auto" = take the
// server profile's default). Errors name the bad value.
Result<llm::RequestOverrides> RequestOverridesOf(const config::LlmConfig& llm);

struct ShardSpec {
  int index = 0;
  int count = 1;
};
// flag > config > SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT (with
// SLURM_ARRAY_TASK_MIN subtracted when set) > 0/1.
Result<ShardSpec> ResolveShard(const std::string& flag, const std::string& configured);

}  // namespace seragen::pipeline
