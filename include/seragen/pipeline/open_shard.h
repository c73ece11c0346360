// Opening one shard of a prepared run for running: its tasks, its journal
// (lock, shard layout and config checks), the leftovers of a crash cleared,
// and the journal folded once into the state RunShard resumes from.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "seragen/base/log.h"
#include "seragen/base/result.h"
#include "seragen/callgraph/plan.h"
#include "seragen/journal/journal.h"
#include "seragen/pipeline/run_setup.h"
#include "seragen/pipeline/shard_run.h"
#include "seragen/runview/run_state.h"

namespace seragen::pipeline {

struct OpenedShard {
  PreparedRun run;
  ShardSpec shard;
  std::string shard_dir;
  std::vector<callgraph::PlannedTask> tasks;  // this shard's part of the plan
  std::unique_ptr<journal::Journal> journal;  // open: the shard's lock is held
  runview::ShardState folded;                 // the journal's records as found, folded once (runview::FoldShard)
};

struct OpenShardOptions {
  bool allow_config_change = false;  // resume although the recipe changed (config_change record)
  // Called once the journal is open (the lock held), before anything is
  // logged about the shard: the caller's chance to log into the shard's log.
  std::function<void(const std::string& shard_dir)> journal_opened;
};

// Opens `shard` of `run`. Errors are Journal::Open's (locked by another
// writer, another shard layout, a changed config without the allowance, a
// damaged journal). Temp files of interrupted durable writes and turn logs
// the journal says are finished are removed; a failure to remove them is
// logged as a warning (they are never read) and not an error.
Result<OpenedShard> OpenShard(PreparedRun run, const ShardSpec& shard, const OpenShardOptions& options,
                              const log::Logger& logger);

}  // namespace seragen::pipeline
