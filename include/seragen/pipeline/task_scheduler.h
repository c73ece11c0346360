// TaskScheduler: runs a shard's tasks on a bounded number of slots with no
// stage barriers, checks budgets before each dispatch, and stops cleanly.
//
// Lives on the context's `loop` executor (all methods must be called there;
// the stop grace period is a `loop->RunAfter` timer). A task's slot index is
// stable while it runs and is reused afterwards (it picks the sandbox uid).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "seragen/callgraph/plan.h"
#include "seragen/journal/resume_state.h"
#include "seragen/pipeline/task_runner.h"
#include "seragen/runview/run_budget.h"

namespace seragen::pipeline {

using runview::BudgetLimits;
using runview::BudgetUse;

struct TaskSchedulerOptions {
  int concurrency = 8;  // slots: the most tasks ever in flight (SetLimit moves below it)
  // Run-wide limits (run_budget.h), checked before each dispatch against this
  // shard's journal at start, what this process dispatched and spent since,
  // and `other_shards()`. A task the journal already has is resumed whatever
  // max_tasks says: it was counted when it started.
  BudgetLimits budget;
  // This shard's journal at start (runview::UseOf of its fold; RunShard sets it).
  BudgetUse journal_use;
  // The other shards' use (from their journals); empty: this shard alone.
  std::function<BudgetUse()> other_shards;
  PriceBook prices;                        // the budget's cost: each endpoint's tokens at its price (config/prices.h)
  std::chrono::milliseconds grace{30000};  // stop request -> cancel of in-flight tasks
  // Called on the loop after every finished task (progress display, logs).
  std::function<void(const struct RunSummary&)> on_progress;
};

struct RunSummary {
  std::size_t planned = 0;           // tasks in this shard
  std::size_t already_finished = 0;  // finished before this invocation
  std::size_t accepted_before = 0;   // of those, accepted (set by RunShard from the journal)
  std::size_t dispatched = 0;
  std::size_t in_flight = 0;
  std::map<TaskOutcome::Kind, std::size_t> outcomes;  // by kind (named by TaskOutcomeKindName)
  std::size_t accepted = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;
  std::int64_t model_calls = 0;
  std::int64_t agent_steps = 0;
  double cost_usd = 0;
  BudgetUse run_budget_used;  // run-wide (all shards, all invocations) at the last dispatch check
  std::string stop_reason;    // empty: ran to completion
  bool aborted = false;       // a configuration/quota error stopped the run
  std::string abort_detail;
};

class TaskScheduler {
 public:
  TaskScheduler(PipelineContext* context, std::vector<callgraph::PlannedTask> tasks, journal::ResumeState state,
                TaskSchedulerOptions options);

  // Dispatches until every task is finished or a stop; `done` runs once on loop.
  void Start(std::function<void(RunSummary)> done);
  // Stops scheduling. With `cancel_in_flight`, in-flight tasks get the grace
  // period and are then cancelled (they resume from their last durable stage
  // next time); without it they run to the end (budget stops). Idempotent.
  void RequestStop(const std::string& reason, bool cancel_in_flight = true);

  const RunSummary& summary() const { return summary_; }

  // Tasks kept in flight from now on, clamped to [1, options.concurrency]
  // (the starting limit is options.concurrency). A raised limit starts tasks
  // at once; a lowered one lets running tasks finish and starts no new one
  // until fewer than the limit run. Before Start it only sets the limit.
  void SetLimit(int limit);
  int limit() const { return limit_; }
  // True when unfinished tasks wait that the limit alone holds back.
  bool LimitBinds() const;

 private:
  void Pump();
  void OnTaskDone(std::size_t slot, const callgraph::PlannedTask& task, TaskOutcome outcome);
  // Empty when `task` may start within the run-wide budgets, else why not.
  std::string BudgetStop(const callgraph::PlannedTask& task);
  void MaybeFinish();

  PipelineContext* ctx_;
  std::vector<callgraph::PlannedTask> tasks_;
  journal::ResumeState state_;
  TaskSchedulerOptions options_;
  std::size_t next_ = 0;
  std::vector<std::shared_ptr<TaskRunner>> slots_;
  int limit_ = 1;
  RunSummary summary_;
  std::int64_t new_dispatched_ = 0;  // dispatched tasks the journal did not have
  bool stopping_ = false;
  bool started_ = false;
  bool done_called_ = false;
  std::function<void(RunSummary)> done_;
  // Expires with the scheduler; the grace timer checks it before touching slots_.
  std::shared_ptr<const bool> alive_ = std::make_shared<const bool>(true);
};

}  // namespace seragen::pipeline
