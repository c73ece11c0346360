// A run directory read into one row per task, for `seragen report` and
// `seragen show`: a function of the folded run (runview::FoldRun), the same
// state `seragen status` reads, so it works while shards are still running. Trajectory files are not read here (see
// task_detail.h); a row holds only what the plan and the journals say.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/journal/outcomes.h"
#include "seragen/journal/record.h"
#include "seragen/journal/ref_list.h"
#include "seragen/runview/status_report.h"

namespace seragen::report {

// Steps of the funnel, in order. A task counts in a step when its journal
// shows it got there (in any rollout-1 attempt).
inline constexpr const char* kFunnelSteps[] = {
    "planned",  // not an outcome: a funnel step id
    "rollout1_submitted",
    "judged",
    "issue_written",
    "rollout2_submitted",
    "accepted",  // not an outcome: a funnel step id
};
inline constexpr std::size_t kFunnelStepCount = 6;

// What the trajectory file of one rollout says (filled by the report writer
// when it reads the file; `present` false until then or when it is missing).
struct RolloutSummary {
  bool present = false;
  std::string exit_status;
  int steps = 0;
  int model_calls = 0;
  int format_errors = 0;
  std::int64_t tokens = 0;  // prompt + completion
  double wall_seconds = 0;
  std::string model;  // the model id the trajectory records
};

struct TaskRow {
  std::string task_id;
  int shard = -1;  // shard whose journal holds the task; plan shard when not started
  bool started = false;
  // From the plan.
  std::string repo, commit, function_id, file, qualname, language;
  int start_line = 0, end_line = 0;
  // The category of the task's latest rollout-1 attempt (the plan's until a
  // judge retry draws another; journal::AttemptCategory), and the plan's.
  int category = 0;
  std::string category_name;  // topic, or "category N"
  int planned_category = 0;
  // " (N)", or " (N; planned M)" when a judge retry drew another category.
  std::string CategoryNote() const;
  bool in_plan = false;
  // "repo/dir" of the function's file ("repo/." at the top); "" for a task
  // not in the plan.
  std::string Directory() const;
  // Outcome: accepted, rejected, not_scorable (verified), skipped, failed,
  // running (started, not finished), planned (no record yet).
  journal::Outcome outcome = journal::Outcome::kPlanned;
  std::optional<journal::Stage> stage;  // latest stage (none when not started)
  std::string_view OutcomeName() const { return journal::OutcomeName(outcome); }
  std::string_view StageName() const { return stage ? journal::StageName(*stage) : std::string_view(); }
  std::string detail;  // skip reason, error class or rollout exit status
  std::string error_message;
  int attempts = 0;  // rollout-1 attempts (judge rejections + 1)
  int judge_rejections = 0;
  journal::TokenUsage tokens;  // summed over the task's records
  std::int64_t wall_ms = 0;    // summed stage timings
  journal::RefList refs;       // role -> path relative to the shard directory
  std::optional<journal::VerificationScores> scores;
  std::optional<double> threshold;
  std::string demo_issue, demo_source;
  bool funnel[kFunnelStepCount] = {};
  RolloutSummary r1, r2;
  std::string page;  // file name of the task page ("<id>.html", made safe)
};

struct Funnel {
  std::size_t counts[kFunnelStepCount] = {};
  // For each step after the first: why tasks that reached the step before it
  // did not reach it (outcome[/detail] -> count).
  std::map<std::string, std::size_t> drops[kFunnelStepCount];
};

struct RunView {
  std::string run_dir;
  runview::StatusReport status;
  std::vector<TaskRow> rows;  // plan order; tasks found only in journals at the end
  std::map<int, std::string> shard_dirs;
  std::vector<std::string> categories;  // topic by category index
  std::string recipe_hash;              // effective config hash of the first journal
  std::string config_yaml;              // RUN_DIR/config.yaml (clipped), "" when missing
  std::string first_record_at, last_record_at;
  // From the run's config (defaults when it is missing): where the prompts
  // and the demonstration issues of a "file" source are.
  std::string prompts_dir;
  std::string demos_file, demos_repo;
};

// Folds `run_dir` once (runview::FoldRun) and makes its rows and status.
// Errors as runview::FoldRun (kNotFound without a plan).
Result<RunView> LoadRunView(const std::string& run_dir);
// The view of a run as FoldRun returns it (its owners indexed). Consumes the
// run as it goes: the plan's strings move into the rows, and each shard's
// tasks are freed once converted, so the rows take the place of the fold
// instead of adding to it.
RunView RunViewOf(runview::RunState&& run);

// The funnel of the rows.
Funnel ComputeFunnel(const std::vector<TaskRow>& rows);

// The row of `task_id`, or of the one task whose id starts with it; nullptr
// when none or several match.
const TaskRow* FindTask(const RunView& view, std::string_view task_id);

// "<id>.html" when the id is made of [A-Za-z0-9_-] (at most 100), else a
// hash-based name: ids come from a file on disk, never trusted as paths.
std::string PageName(std::string_view task_id);

// "repo/dir" of a repository-relative file ("repo/." at the top).
std::string DirectoryOf(std::string_view repo, std::string_view file);

}  // namespace seragen::report
