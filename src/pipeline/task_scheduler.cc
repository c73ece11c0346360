#include "seragen/pipeline/task_scheduler.h"

#include <algorithm>

#include "seragen/base/log.h"
#include "seragen/runview/cost_ledger.h"

namespace seragen::pipeline {

TaskScheduler::TaskScheduler(PipelineContext* context, std::vector<callgraph::PlannedTask> tasks,
                             journal::ResumeState state, TaskSchedulerOptions options)
    : ctx_(context), tasks_(std::move(tasks)), state_(std::move(state)), options_(std::move(options)) {
  slots_.resize(static_cast<std::size_t>(std::max(1, options_.concurrency)));
  limit_ = static_cast<int>(slots_.size());
  summary_.planned = tasks_.size();
  for (const callgraph::PlannedTask& t : tasks_) {
    if (state_.IsFinished(t.task_id)) summary_.already_finished++;
  }
}

void TaskScheduler::Start(std::function<void(RunSummary)> done) {
  done_ = std::move(done);
  started_ = true;
  Pump();
  MaybeFinish();
}

std::string TaskScheduler::BudgetStop(const callgraph::PlannedTask& task) {
  if (!options_.budget.any()) return "";
  BudgetUse used = options_.journal_use;
  used.tasks += new_dispatched_;
  used.tokens += summary_.prompt_tokens + summary_.completion_tokens;
  used.cost_usd += summary_.cost_usd;
  if (options_.other_shards) used += options_.other_shards();
  summary_.run_budget_used = used;
  BudgetLimits limits = options_.budget;
  if (state_.Find(task.task_id) != nullptr) limits.max_tasks = 0;  // counted when it started
  return runview::BudgetExhausted(used, limits);
}

void TaskScheduler::Pump() {
  for (std::size_t slot = 0; slot < slots_.size() && !stopping_; ++slot) {
    if (summary_.in_flight >= static_cast<std::size_t>(limit_)) break;
    if (slots_[slot]) continue;
    // Next unfinished task.
    while (next_ < tasks_.size() && state_.IsFinished(tasks_[next_].task_id)) ++next_;
    if (next_ >= tasks_.size()) break;
    if (std::string why = BudgetStop(tasks_[next_]); !why.empty()) {
      RequestStop(why, /*cancel_in_flight=*/false);
      break;
    }
    const callgraph::PlannedTask& task = tasks_[next_++];
    if (state_.Find(task.task_id) == nullptr) new_dispatched_++;
    auto runner = TaskRunner::Create(task, state_.Find(task.task_id), static_cast<int>(slot), ctx_);
    slots_[slot] = runner;
    summary_.dispatched++;
    summary_.in_flight++;
    runner->Start([this, slot, task](TaskOutcome outcome) { OnTaskDone(slot, task, std::move(outcome)); });
  }
}

void TaskScheduler::SetLimit(int limit) {
  limit_ = std::clamp(limit, 1, static_cast<int>(slots_.size()));
  if (started_) Pump();
}

bool TaskScheduler::LimitBinds() const {
  if (stopping_ || summary_.in_flight < static_cast<std::size_t>(limit_)) return false;
  for (std::size_t i = next_; i < tasks_.size(); ++i) {
    if (!state_.IsFinished(tasks_[i].task_id)) return true;
  }
  return false;
}

void TaskScheduler::OnTaskDone(std::size_t slot, const callgraph::PlannedTask& task, TaskOutcome outcome) {
  // Keep the runner alive until this callback returns.
  std::shared_ptr<TaskRunner> keep = std::move(slots_[slot]);
  summary_.in_flight--;
  summary_.outcomes[outcome.kind]++;
  if (outcome.accepted) summary_.accepted++;
  summary_.prompt_tokens += outcome.prompt_tokens;
  summary_.completion_tokens += outcome.completion_tokens;
  summary_.cached_tokens += outcome.cached_tokens;
  summary_.model_calls += outcome.model_calls;
  summary_.agent_steps += outcome.agent_steps;
  summary_.cost_usd += runview::TokensCostUsd(outcome.endpoint_tokens, options_.prices);
  log::Logger("pipeline", task.task_id).Info("task {}: {}", TaskOutcomeKindName(outcome.kind), outcome.detail);
  if (outcome.kind == TaskOutcome::Kind::kAbortRun && !summary_.aborted) {
    summary_.aborted = true;
    summary_.abort_detail = outcome.detail;
    RequestStop("aborted: " + outcome.detail);
  }
  if (options_.on_progress) options_.on_progress(summary_);
  Pump();
  MaybeFinish();
}

void TaskScheduler::RequestStop(const std::string& reason, bool cancel_in_flight) {
  if (stopping_) return;
  stopping_ = true;
  summary_.stop_reason = reason;
  log::Logger("pipeline").Warn("stopping: {} ({} task(s) in flight)", reason, summary_.in_flight);
  if (summary_.in_flight == 0 || !cancel_in_flight) return;
  // The timer may fire after the run ended and this scheduler is gone.
  auto cancel_all = [this, alive = std::weak_ptr<const bool>(alive_)] {
    if (alive.expired()) return;
    for (auto& runner : slots_) {
      if (runner) runner->Cancel();
    }
  };
  ctx_->loop->RunAfter(options_.grace, cancel_all);
}

void TaskScheduler::MaybeFinish() {
  if (done_called_ || summary_.in_flight > 0) return;
  bool more = false;
  if (!stopping_) {
    for (std::size_t i = next_; i < tasks_.size() && !more; ++i) more = !state_.IsFinished(tasks_[i].task_id);
  }
  if (more) return;
  done_called_ = true;
  auto done = std::move(done_);
  if (done) done(summary_);
}

}  // namespace seragen::pipeline
