#include "seragen/journal/resume_state.h"

#include <algorithm>

#include "seragen/journal/outcomes.h"

namespace seragen::journal {

void ForgetRejectedAttempt(TaskProgress* progress) {
  ++progress->judge_rejections;
  progress->stages_done.erase(Stage::kRollout1Done);
  progress->stages_done.erase(Stage::kJudgeDone);
  progress->refs.Erase(kRefRollout1);
}

bool Rollout1JudgedYes(const TaskProgress& progress) {
  return progress.Done(Stage::kRollout1Done) && progress.Done(Stage::kJudgeDone);
}

int AttemptCategory(const TaskProgress& progress, int planned) {
  return progress.rollout1.category_index ? static_cast<int>(*progress.rollout1.category_index) : planned;
}

namespace {

RolloutDraw DrawOf(const JournalRecord& record) {
  const RolloutResult* r = record.rollout();
  return r == nullptr ? RolloutDraw{} : RolloutDraw{r->category_index, r->seed, r->env_broken > 0};
}

void NoteMilestones(const JournalRecord& record, TaskProgress* t) {
  switch (record.stage) {
    case Stage::kRollout1Done: t->reached.rollout1_submitted |= IsSubmittedRollout(record); break;
    case Stage::kJudgeDone: t->reached.judged_yes |= !IsJudgeRejection(record); break;
    case Stage::kIssueDone:
      t->reached.issue_written = true;
      t->reached.judged_yes = true;  // without a judge, every issue follows an unjudged rollout 1
      if (const IssueResult* issue = record.issue()) t->issue = *issue;
      break;
    case Stage::kRollout2Done: t->reached.rollout2_submitted |= IsSubmittedRollout(record); break;
    default: break;
  }
}

}  // namespace

ResumeState ResumeState::Fold(const std::vector<JournalRecord>& records) {
  ResumeState state;
  for (const auto& r : records) state.Apply(r);
  return state;
}

TaskProgress& ResumeState::Slot(const std::string& task_id) {
  for (TaskProgress* t : recent_.slots) {
    if (t != nullptr && t->task_id == task_id) return *t;
  }
  auto it = tasks_.find(task_id);
  if (it == tasks_.end()) {
    it = tasks_.emplace(task_id, TaskProgress{}).first;
    it->second.task_id = task_id;
  }
  recent_.slots[recent_.next++ % RecentTasks::kSlots] = &it->second;
  return it->second;
}

void ResumeState::Apply(const JournalRecord& record) {
  TaskProgress& t = Slot(record.task_id);
  if (t.finished) --finished_;
  // A new rollout 1 (a redo after its trajectory was unreadable) is not judged yet.
  if (record.stage == Stage::kRollout1Done) {
    t.stages_done.erase(Stage::kJudgeDone);
    t.rollout1 = DrawOf(record);
  }
  if (record.stage == Stage::kRollout2Done) t.rollout2 = DrawOf(record);
  t.stages_done.insert(record.stage);
  for (const auto& [role, path] : record.refs) t.refs.Set(role, path);
  t.max_attempt = std::max(t.max_attempt, record.attempt);
  if (IsJudgeRejection(record)) ForgetRejectedAttempt(&t);
  ++t.records;
  t.tokens += record.tokens;
  for (const auto& [name, ms] : record.timings_ms) t.wall_ms += ms;
  NoteMilestones(record, &t);
  t.last = LatestRecord(record);
  t.finished =
      IsTerminalStage(record.stage) && !(record.stage == Stage::kFailed && record.error && record.error->retryable);
  if (t.finished) ++finished_;
}

const TaskProgress* ResumeState::Find(std::string_view task_id) const {
  auto it = tasks_.find(task_id);
  return it == tasks_.end() ? nullptr : &it->second;
}

bool ResumeState::IsFinished(std::string_view task_id) const {
  const TaskProgress* t = Find(task_id);
  return t != nullptr && t->finished;
}

bool ResumeState::StageDone(std::string_view task_id, Stage stage) const {
  const TaskProgress* t = Find(task_id);
  return t != nullptr && t->Done(stage);
}

}  // namespace seragen::journal
