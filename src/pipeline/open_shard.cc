#include "seragen/pipeline/open_shard.h"

#include <string_view>

#include "seragen/journal/result_files.h"
#include "seragen/journal/run_paths.h"
#include "seragen/journal/turn_log.h"

namespace seragen::pipeline {
namespace {

// Leftovers of a crash; they are never read, so a failure to remove them only
// costs disk space: say so and go on.
void RemoveLeftovers(const OpenedShard& out, const log::Logger& logger) {
  for (std::string_view subdir : {journal::kTrajectoriesDir, journal::kIssuesDir, journal::kTurnsDir}) {
    auto removed = journal::RemoveStaleTempFiles(out.shard_dir, subdir);
    if (!removed.ok()) logger.Warn("{} (left in place)", removed.status().message());
  }
  auto stale_logs = journal::RemoveFinishedTurnLogs(out.shard_dir, out.folded.tasks);
  if (!stale_logs.ok()) logger.Warn("{} (left in place)", stale_logs.status().message());
}

}  // namespace

Result<OpenedShard> OpenShard(PreparedRun run, const ShardSpec& shard, const OpenShardOptions& options,
                              const log::Logger& logger) {
  OpenedShard out;
  out.shard = shard;
  out.tasks = ShardTasks(run.plan, shard);
  out.shard_dir = ShardDir(run.run_dir, shard);
  SG_ASSIGN_OR_RETURN(out.journal, journal::Journal::Open({.shard_dir = out.shard_dir,
                                                           .shard = shard.index,
                                                           .shards = shard.count,
                                                           .config_hash = run.recipe_hash,
                                                           .allow_config_change = options.allow_config_change,
                                                           .previous_config = run.previous_config}));
  if (options.journal_opened) options.journal_opened(out.shard_dir);
  out.folded = runview::FoldShard(out.shard_dir, out.journal->existing());
  RemoveLeftovers(out, logger);
  logger.Info("shard {}/{}: {} of {} planned tasks, run directory {}", shard.index, shard.count, out.tasks.size(),
              run.plan.size(), run.run_dir);
  out.run = std::move(run);
  return out;
}

}  // namespace seragen::pipeline
