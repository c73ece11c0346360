// The evaluation tasks of a run: its held-out tasks (eval.holdout) that have
// what a benchmark task needs: a synthetic issue and a non-empty reference
// patch P1 from a rollout 1 the judge accepted (when the run had a judge).
// `seragen export RUN --eval DIR` writes them; `seragen eval` runs them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/config/config.h"
#include "seragen/eval/eval_task.h"

namespace seragen::eval {

struct EvalTaskSet {
  std::vector<EvalTask> tasks;  // in task-id order
  std::size_t heldout = 0;      // held-out tasks in the plan
  // Held-out tasks left out, by reason: not_finished (no issue yet),
  // no_reference (empty or missing P1), judge_rejected, unreadable.
  std::map<std::string, std::size_t> left_out;
};

// An environment as a short key: what rollouts run in and how tests run
// there (image, root, setup, test command).
std::string EnvironmentKey(const config::EnvironmentConfig& e);
// Every environment of `cfg` (run-wide, then each repository's), as one key.
std::string EnvironmentsKey(const config::Config& cfg);

// Reads RUN_DIR (runview's fold, the trajectories and issues). kNotFound
// without a plan.
Result<EvalTaskSet> EvalTasksOf(const std::string& run_dir);

// DIR/eval.jsonl, written atomically; its path.
Result<std::string> WriteEvalTasks(const EvalTaskSet& set, const std::string& dir);

// "eval tasks: 4 of 6 held-out tasks -> DIR/eval.jsonl (left out: not_finished 2)".
std::string FormatEvalTaskSet(const EvalTaskSet& set, const std::string& path);

}  // namespace seragen::eval
