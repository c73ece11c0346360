// Results of `seragen eval` (docs/EVAL.md, "Metrics and intervals"): per
// model, the resolve rate (rollouts handed in with recall >= the threshold),
// mean recall, the test-evidence pass rate where recorded, each with a 95%
// interval that treats tasks as the unit (seeds of one task are correlated),
// tokens and wall time; and a per-task table over several models.
// Pure functions of the logs; deterministic (the bootstrap has a fixed seed).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "seragen/eval/eval_log.h"

namespace seragen::eval {

struct Interval {
  double lo = 0, hi = 0;
};

// One model's outcome on one task (over its seeds).
struct TaskOutcome {
  std::size_t rollouts = 0, resolved = 0;
  double mean_recall = 0;
  std::int64_t tokens = 0;  // prompt + completion over its rollouts
  double wall_seconds = 0;  // over its rollouts
  // Rollouts with a test verdict (passes or fails) and those that pass.
  std::size_t tests_rollouts = 0, tests_passed = 0;
};

struct EvalSummary {
  std::string label, model, eval_dir;
  std::size_t n_tasks = 0, n_rollouts = 0;
  double resolve_rate = 0;  // mean over tasks of each task's resolved fraction
  Interval resolve_ci95;
  double mean_recall = 0;  // mean over tasks of each task's mean recall
  Interval recall_ci95;
  // Test evidence (eval_tests.h): the pass rate over the tasks with a test
  // signal (mean over them of each task's passing fraction); absent when no
  // rollout has a test verdict (no test command, or no task with a signal).
  std::optional<double> tests_pass_rate;
  std::optional<Interval> tests_ci95;
  std::size_t tests_tasks = 0;               // tasks in the rate's denominator
  std::size_t tests_no_signal = 0;           // tasks with evidence whose reference changed no test
  std::size_t tests_unavailable = 0;         // tasks with evidence whose base or reference run gave no outcomes
  double tokens_per_task = 0;                // mean over tasks of the tokens of all its rollouts
  double wall_seconds_per_task = 0;          // likewise
  std::map<std::string, TaskOutcome> tasks;  // task id -> outcome
};

// Bootstrap resamples of the task-clustered percentile interval.
inline constexpr int kBootstrapResamples = 2000;

// Wilson score interval of `successes` in `n` at 95% ([0, 1] when n is 0).
Interval Wilson(double successes, double n);
// Percentile bootstrap of the mean of `values` (one per task), resampling
// tasks with replacement, kBootstrapResamples times, fixed seed.
Interval BootstrapMean(const std::vector<double>& values);

EvalSummary Summarize(const EvalHeader& header, const std::vector<EvalResult>& results, const std::string& eval_dir);

std::string SummaryJson(const std::vector<EvalSummary>& summaries);
// The models side by side, then one row per task with each model's k/n.
std::string FormatComparison(const std::vector<EvalSummary>& summaries);

}  // namespace seragen::eval
