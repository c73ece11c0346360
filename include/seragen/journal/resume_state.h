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

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/journal/record.h"
#include "seragen/journal/ref_list.h"

namespace seragen::journal {

// How far a task got in any of its rollout-1 attempts (the report's funnel).
struct Milestones {
  bool rollout1_submitted = false;  // a rollout1_done with status "submitted"
  bool judged_yes = false;          // a judge yes, or an issue written (no judge)
  bool issue_written = false;
  bool rollout2_submitted = false;

  friend bool operator==(const Milestones&, const Milestones&) = default;
};

// What the fold keeps of a rollout's done record: the draw of its attempt.
struct RolloutDraw {
  std::optional<std::uint64_t> category_index;
  std::optional<std::uint64_t> seed;
  bool env_broken = false;  // RolloutResult::env_broken > 0

  friend bool operator==(const RolloutDraw&, const RolloutDraw&) = default;
};

// A set of stages as bits (the fold keeps one per task).
class StageSet {
 public:
  void insert(Stage stage) { bits_ |= Bit(stage); }
  void erase(Stage stage) { bits_ &= static_cast<std::uint16_t>(~Bit(stage)); }
  void clear() { bits_ = 0; }
  bool contains(Stage stage) const { return (bits_ & Bit(stage)) != 0; }
  std::size_t count(Stage stage) const { return contains(stage) ? 1 : 0; }
  bool empty() const { return bits_ == 0; }

  friend bool operator==(const StageSet&, const StageSet&) = default;

 private:
  static std::uint16_t Bit(Stage stage) { return static_cast<std::uint16_t>(1u << static_cast<unsigned>(stage)); }
  std::uint16_t bits_ = 0;
};

struct TaskProgress {
  std::string task_id;
  // Every stage that has a record (incl. failed/skipped) in the current
  // rollout-1 attempt: a judge "no" starts a new attempt, so it clears
  // rollout1_done, judge_done and the rollout-1 ref.
  StageSet stages_done;
  // The latest record of this task (its refs, timings and tokens are folded
  // into `refs`, `wall_ms` and `tokens`).
  LatestRecord last;
  // Union of the refs of all records, a later record winning per role.
  RefList refs;
  int max_attempt = 0;
  int judge_rejections = 0;  // judge_done records whose answer was not yes
  // The category and seed of the latest rollout1_done and rollout2_done
  // (empty before one is recorded, or when the record has none).
  RolloutDraw rollout1, rollout2;
  std::size_t records = 0;
  TokenUsage tokens;         // the sum over the task's records (what its finished stages spent)
  std::int64_t wall_ms = 0;  // the sum of the records' stage timings
  Milestones reached;
  IssueResult issue;  // the extra of the latest issue_done (the demonstration it showed)
  bool finished = false;

  bool Done(Stage stage) const { return stages_done.contains(stage); }
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

// Only runview's fold (src/runview/shard_fold.cc) applies records: every
// reader of a run gets its state from there (scripts/check-fold enforces it).
class ResumeState {
 public:
  ResumeState() = default;
  static ResumeState Fold(const std::vector<JournalRecord>& records);

  // Folds one more record in, in journal order.
  void Apply(const JournalRecord& record);

  // nullptr when the journal has nothing about the task.
  const TaskProgress* Find(std::string_view task_id) const;
  bool IsFinished(std::string_view task_id) const;
  bool StageDone(std::string_view task_id, Stage stage) const;

  const std::map<std::string, TaskProgress, std::less<>>& tasks() const { return tasks_; }
  std::size_t finished_count() const { return finished_; }

 private:
  // The tasks of the last few records: a journal's records of one task sit
  // close together, so most records skip the map search. Pointers into
  // tasks_' nodes (stable); a copy or move starts with an empty cache.
  struct RecentTasks {
    static constexpr std::size_t kSlots = 16;
    std::array<TaskProgress*, kSlots> slots{};
    std::size_t next = 0;
    RecentTasks() = default;
    RecentTasks(const RecentTasks&) noexcept {}
    RecentTasks& operator=(const RecentTasks&) noexcept {
      slots = {};
      return *this;
    }
  };

  TaskProgress& Slot(const std::string& task_id);

  std::map<std::string, TaskProgress, std::less<>> tasks_;
  std::size_t finished_ = 0;
  RecentTasks recent_;
};

}  // namespace seragen::journal
