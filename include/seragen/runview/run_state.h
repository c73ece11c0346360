// A run directory read back once: its plan, every shard journal folded, and
// its saved settings. This is the one place journal records are applied
// (shard_fold.cc; scripts/check-fold fails the lint when another caller folds
// journals): `status`, `report`, `export`, `merge` and the run side's budget
// and resume are functions of this state.
//
// Read-only over the run directory (no shard lock is taken), so it can read a
// run whose shards are still working. Journals are streamed: a record is
// decoded, applied and dropped, never held.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/callgraph/plan.h"
#include "seragen/journal/journal_reader.h"
#include "seragen/journal/resume_state.h"
#include "seragen/runview/run_settings.h"
#include "seragen/runview/token_accounting.h"

namespace seragen::runview {

// What one shard's records add up to beyond each task's progress.
struct ShardTotals {
  // Every record's tokens by the record's stage: the one sum of a shard's
  // usage (the cost ledger prices it, status and the budgets total it).
  std::map<journal::Stage, journal::TokenUsage> tokens_by_stage;
  journal::TokenUsage tokens() const;  // over every stage
  // The same tokens by stage and by the endpoint that answered them
  // (journal::AttributedTokens: "" for tokens of no named endpoint), for the
  // cost ledger, which prices each endpoint's with its own price.
  std::map<journal::Stage, journal::EndpointTokens> endpoint_tokens_by_stage;
  // rollout exit status -> count; "autosubmitted:<status>" for rollouts that
  // submitted their diff after that limit (agent::OutcomeName)
  std::map<std::string, std::size_t> rollout_exits;
  std::size_t autosubmitted = 0;  // rollouts (1 and 2) that ended autosubmitted
  std::size_t rollouts = 0;       // rollout records (1 and 2)
  std::size_t env_broken = 0;     // of those: a command failed to import the repository's own code
  // The span of the records' timestamps: as written (ISO-8601), and in
  // seconds since the epoch over the well-formed ones (0 when none).
  std::string first_at, last_at;
  double first_seconds = 0, last_seconds = 0;
  TokenAccounting accounting;
};

struct ShardState {
  int index = 0;  // K
  std::string shard_dir;
  // Header, config changes and torn tail of the journal; `records` is empty
  // (each record was applied to `tasks` and `totals`).
  journal::LoadedJournal journal;
  journal::ResumeState tasks;
  ShardTotals totals;
  // SHA-256 of every rollout-1 patch recorded (duplicate-P1 detection on resume).
  std::set<std::string> p1_hashes;
  // Ids of this shard's tasks that an earlier shard holds too (RunState::IndexOwners).
  std::set<std::string, std::less<>> shadowed;
};

// Folds one shard: the records of `journal` (held in memory, as the run side
// has them) or those streamed by FoldRun.
ShardState FoldShard(const std::string& shard_dir, const journal::LoadedJournal& journal);

struct RunState {
  std::string run_dir;
  std::vector<callgraph::PlannedTask> plan;  // tasks.jsonl (empty with FoldOptions::plan false)
  std::vector<ShardState> shards;            // sorted by K
  RunSettings settings;

  // N of the journals' headers; 1 before any shard has run.
  int shard_count() const;
  // Each task once, with the shard that holds it. A task found in several
  // shards (a re-sharded rerun) belongs to the first of them by K: its other
  // copies are left out here and counted in duplicate_tasks().
  void ForEachTask(const std::function<void(const ShardState&, const journal::TaskProgress&)>& visit) const;
  // Copies of tasks that ForEachTask leaves out.
  std::size_t duplicate_tasks() const;
  // The shard that owns the task (as ForEachTask), or nullptr.
  const ShardState* OwnerOf(const std::string& task_id) const;
  // Records in each shard which of its tasks an earlier shard holds, so that
  // ForEachTask and duplicate_tasks need no search per task; FoldRun calls
  // it. Without it they search the shards (same answers, slower).
  void IndexOwners();

 private:
  bool owners_indexed_ = false;
};

struct FoldOptions {
  bool plan = true;         // read tasks.jsonl
  bool settings = true;     // read config.yaml and the category names (LoadRunSettings)
  std::string prompts_dir;  // LoadRunSettings' override; empty: the saved config's
  int skip_shard = -1;      // a shard K not to read (the caller's own)
};

// Reads and folds RUN_DIR: the shards two at a time on their own threads
// while the calling thread reads the plan and the settings.
// Errors: kNotFound without a plan (when read) or a run directory; the first
// damaged journal as journal::LoadJournal names it; kFailedPrecondition when
// the shards disagree on N or a directory's K differs from its header.
Result<RunState> FoldRun(const std::string& run_dir, const FoldOptions& options = {});

}  // namespace seragen::runview
