// This process's shard of a run (K of N) and where it comes from: the
// --shard flag, the config's run.shard, or a Slurm job array's variables.
#pragma once

#include <string>

#include "seragen/base/result.h"
#include "seragen/config/loader.h"  // EnvLookup

namespace seragen::config {

struct ShardSpec {
  int index = 0;
  int count = 1;
};

// flag > run.shard > SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT (with
// SLURM_ARRAY_TASK_MIN subtracted when set) > 0/1. InvalidArgument names
// the source of a value that is not K/N with 0 <= K < N.
Result<ShardSpec> ResolveShard(const std::string& flag, const std::string& configured, const EnvLookup& env);
// The same over this process's environment.
Result<ShardSpec> ResolveShard(const std::string& flag, const std::string& configured);

}  // namespace seragen::config
