// Running one shard of a prepared run: its tasks on the TaskScheduler, on the
// pipeline loop, until done or stopped. Everything it needs is built by the
// composition root (src/cli): this file knows no config, no signals and no
// terminal; the caller turns the outcome into messages and an exit code.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/callgraph/plan.h"
#include "seragen/config/shard.h"
#include "seragen/journal/journal.h"
#include "seragen/journal/resume_state.h"
#include "seragen/loop/event_loop.h"
#include "seragen/pipeline/auto_concurrency.h"
#include "seragen/pipeline/task_runner.h"
#include "seragen/pipeline/task_scheduler.h"
#include "seragen/runview/run_result.h"
#include "seragen/runview/run_state.h"

namespace seragen::pipeline {

// How a shard run ends is the read side's vocabulary too (`status` reports it).
using runview::RunResult;
using runview::TaskTally;

// Which shard this process runs: config::ResolveShard (flag, run.shard, Slurm).
using config::ShardSpec;

// The planned tasks of `shard` (every count-th task from index), in plan order.
std::vector<callgraph::PlannedTask> ShardTasks(const std::vector<callgraph::PlannedTask>& plan, const ShardSpec& shard);

// RUN_DIR/shard-K.
std::string ShardDir(const std::string& run_dir, const ShardSpec& shard);

// The dependencies of a shard run. Pointers are not owned and must outlive
// RunShard. The caller destroys `context.chat` before the pipeline loop:
// completions of calls abandoned at a stop are still posted to that loop.
struct ShardRunInputs {
  // prompts, demos, messages, chat, workspaces and settings; RunShard sets
  // the rest (store, loop, workers, clock, p1_hashes).
  PipelineContext context;
  journal::Journal* journal = nullptr;  // opened for this shard
  runview::ShardState folded;           // its records as opened (OpenedShard::folded, runview::FoldShard)
  std::string run_dir;                  // for the other shards' journals (run-wide budgets); empty: not read
  std::string shard_dir;
  ShardSpec shard;
  std::vector<callgraph::PlannedTask> tasks;
  TaskSchedulerOptions scheduler;
  std::size_t worker_threads = 4;
  // `run.concurrency: auto` when set: scheduler.concurrency is then the
  // node's bound (the slots) and an AutoConcurrency moves the limit below it,
  // sampling `sample_load` (called on the pipeline loop). `on_auto_status`
  // (optional) gets its status after every sample, on the pipeline loop.
  std::optional<AutoConcurrencyOptions> auto_concurrency;
  std::function<LoadSample()> sample_load;
  std::function<void(const AutoConcurrencyStatus&)> on_auto_status;
};

// Called on the pipeline loop: first after 200 ms, then every tick_interval.
struct ShardRunHooks {
  // True once the run should stop (in-flight tasks get the grace period,
  // then resume next time); also decides RunResult::kInterrupted at the end.
  std::function<bool()> stop_requested;
  // Progress display; `elapsed_s` since RunShard started.
  std::function<void(const RunSummary& summary, double elapsed_s)> on_tick;
  std::chrono::milliseconds tick_interval{1000};
};

struct ShardOutcome {
  RunResult result = RunResult::kComplete;
  RunSummary summary;
  std::optional<Status> run_stop;  // the chat client's stop (configuration or quota), if any
  bool interrupted = false;        // stop_requested() was true at the end
  TaskTally tally;
  double seconds = 0;
};

// A configuration stop of the chat client > an aborted run > interrupted >
// ClassifyTally(tally), except that a shard whose run-wide budget was used up
// before it dispatched anything is incomplete (its tasks were not started).
RunResult ClassifyShard(const RunSummary& summary, const std::optional<Status>& run_stop, bool interrupted,
                        const TaskTally& tally);

// The bytes of SHARD_DIR/summary.json, this invocation's summary for people
// and scripts. Its config_stop is the message of the chat client's stop, with
// no failure-class tag (the class is the Status's detail, never its text).
std::string ShardSummaryText(const ShardSpec& shard, const ShardOutcome& o);

// The tally of a finished shard: verified, skipped and model failures are done.
TaskTally TallyOf(const RunSummary& summary);

// Runs `in.tasks` on `pipeline_loop` (which must be running and outlive the
// call) with a worker pool, until every task finished or a stop. Writes
// SHARD_DIR/summary.json (a failure is logged; the journal stays the record).
// Blocks the calling thread, which must not be the loop's.
ShardOutcome RunShard(loop::EventLoop& pipeline_loop, ShardRunInputs in, const ShardRunHooks& hooks);

}  // namespace seragen::pipeline
