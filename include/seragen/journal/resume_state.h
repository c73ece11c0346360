// ResumeState: what the journal says about each task, for resuming a run.
//
// A fold over task records in file order. For each task it knows which stages
// are done (so a resumed run skips them and reuses their refs), the latest
// record, and whether the task is finished. A task is finished when its latest
// record is terminal: verified, skipped, or failed without error.retryable.
// A retryable failure leaves the task unfinished with its done stages intact,
// so a resumed run continues after the last done stage.
//
// Plain value type; not thread-safe for concurrent mutation.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/journal/record.h"

namespace seragen::journal {

struct TaskProgress {
  std::string task_id;
  // Every stage that has a record (incl. failed/skipped) in the current
  // rollout-1 attempt: a judge "no" starts a new attempt, so it clears
  // rollout1_done, judge_done and the rollout-1 ref.
  std::set<Stage> stages_done;
  JournalRecord last;  // the latest record of this task
  // Union of the refs of all records, a later record winning per role.
  std::map<std::string, std::string> refs;
  int max_attempt = 0;
  int judge_rejections = 0;  // judge_done records whose answer was not yes
  // The extras of the latest rollout1_done and rollout2_done (category and
  // seed of that attempt; empty before one is recorded).
  RolloutResult rollout1, rollout2;
  std::size_t records = 0;
  TokenUsage tokens;  // the sum over the task's records (what its finished stages spent)
  bool finished = false;

  bool Done(Stage stage) const { return stages_done.count(stage) > 0; }
};

// What a judge "no" does to a task's progress: the rejected rollout-1 attempt
// is forgotten (its rollout1_done, judge_done and rollout-1 ref) and counted.
void ForgetRejectedAttempt(TaskProgress* progress);

// The one rule for "this task's rollout 1 was accepted by the judge": the
// latest rollout-1 attempt has a judge "yes" recorded after it. False for a
// rollout 1 never judged (skipped as duplicate_p1 or empty, a judge call that
// failed, a run stopped before the judge) and for a rollout 1 redone after a
// yes. Whether the judge was enabled is the caller's to add.
bool Rollout1JudgedYes(const TaskProgress& progress);

// The bug category of the task's latest rollout-1 attempt as recorded, else
// `planned` (journals written before attempts recorded it).
int AttemptCategory(const TaskProgress& progress, int planned);

class ResumeState {
 public:
  ResumeState() = default;
  static ResumeState Fold(const std::vector<JournalRecord>& records);

  // Folds one more record in (e.g. while the pipeline appends).
  void Apply(const JournalRecord& record);

  // nullptr when the journal has nothing about the task.
  const TaskProgress* Find(std::string_view task_id) const;
  bool IsFinished(std::string_view task_id) const;
  bool StageDone(std::string_view task_id, Stage stage) const;

  const std::map<std::string, TaskProgress, std::less<>>& tasks() const { return tasks_; }
  std::size_t finished_count() const { return finished_; }

 private:
  std::map<std::string, TaskProgress, std::less<>> tasks_;
  std::size_t finished_ = 0;
};

}  // namespace seragen::journal
