// TaskRunner's tool-less stages: the judge of rollout 1 (with its retry of
// rollout 1) and the issue writer (with its retries on unusable answers).
#include <algorithm>

#include "pipeline/issue_stage.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/base/hash.h"
#include "seragen/base/log.h"
#include "seragen/base/rng.h"
#include "seragen/base/utf8.h"
#include "seragen/journal/outcomes.h"
#include "seragen/journal/run_paths.h"
#include "seragen/pipeline/task_runner.h"

namespace seragen::pipeline {
namespace {

using journal::Stage;

}  // namespace

bool TaskRunner::TakeAnswer(const Result<llm::ChatResponse>& answer, const char* stage) {
  if (finished_) return false;
  if (cancelled_) {
    Finish(TaskOutcome::Kind::kCancelled, "cancelled");
    return false;
  }
  if (!answer.ok()) {
    FailFromChat(answer.status(), stage);
    return false;
  }
  AnswerTokens one;
  one.Add(*answer);
  journal::AddEndpointTokens(outcome_.endpoint_tokens, one.by_endpoint);
  outcome_.prompt_tokens += answer->usage.prompt_tokens;
  outcome_.completion_tokens += answer->usage.completion_tokens;
  outcome_.model_calls++;
  return true;
}

std::string TaskRunner::Numbered(const std::string& purpose, int n) {
  return n <= 1 ? purpose : purpose + "." + std::to_string(n);
}

int TaskRunner::CategoryForAttempt() const {
  int count = static_cast<int>(ctx_->prompts->categories().size());
  if (r1_attempt_ <= 1 || count <= 1) return task_.category;
  // Attempt k draws from the categories no earlier attempt used (all again once they run out).
  std::vector<int> used{task_.category};
  int category = task_.category;
  for (int k = 2; k <= r1_attempt_; ++k) {
    if (static_cast<int>(used.size()) >= count) used.clear();
    std::vector<int> left;
    for (int c = 0; c < count; ++c) {
      if (std::find(used.begin(), used.end(), c) == used.end()) left.push_back(c);
    }
    Rng rng = Rng::Derive(ctx_->settings.run_seed, task_.task_id, Numbered("category", k));
    category = left[rng.Uniform(left.size())];
    used.push_back(category);
  }
  return category;
}

void TaskRunner::WriteIssue() {
  if (!rollout1_) return Finish(TaskOutcome::Kind::kInfraFailure, "rollout 1 result missing");
  const PromptLibrary& prompts = *ctx_->prompts;
  Result<std::string> summary = SummarizeTrajectory(*rollout1_, prompts);
  if (!summary.ok()) return Finish(TaskOutcome::Kind::kAbortRun, summary.status().ToString());
  // A fresh demonstration per rollout-1 attempt (attempt 1 keeps the draw of older runs).
  Rng demo_rng = Rng::Derive(ctx_->settings.run_seed, task_.task_id, Numbered("demo_issue", r1_attempt_));
  const demos::DemoIssue& demo = ctx_->demos->Pick(demo_rng, task_.language);  // in the repository's language
  // Models see the UTF-8 text form; hashing and scoring keep the exact bytes.
  Result<std::string> prompt = prompts.IssueWriter(*summary, RepairUtf8(rollout1_->patch), demo.text);
  if (!prompt.ok()) return Finish(TaskOutcome::Kind::kAbortRun, prompt.status().ToString());
  const StageSettings& s = ctx_->settings;
  llm::ChatRequest req =
      ToolLessRequest(s.request_template, std::move(*prompt), s.issue_max_tokens, s.issue_temperature);
  ++issue_tries_;
  req.seed = s.send_seed ? std::optional<std::uint64_t>(SeedFor(Numbered("issue", issue_tries_))) : std::nullopt;
  auto self = shared_from_this();
  llm::CallOptions opts = s.call_options;
  opts.task_id = task_.task_id;
  std::string demo_id = demo.id;
  call_ = ctx_->chat->Complete(std::move(req), opts, [self, demo_id](Result<llm::ChatResponse> r) {
    self->ctx_->loop->Post([self, demo_id, r = std::move(r)]() mutable {
      self->call_.reset();
      self->OnIssueAnswer(std::move(r), demo_id);
    });
  });
}

void TaskRunner::OnIssueAnswer(Result<llm::ChatResponse> answer, const std::string& demo_id) {
  if (!TakeAnswer(answer, "issue")) return;
  issue_tokens_.Add(*answer);
  auto self = shared_from_this();
  Result<std::string> issue = ExtractTagged(answer->content, ctx_->prompts->issue_tag());
  const std::size_t cap = ctx_->settings.issue_max_bytes;
  if (issue.ok() && cap > 0 && issue->size() > cap) {
    issue = ParseError("the issue text is " + std::to_string(issue->size()) + " bytes, over the cap of " +
                       std::to_string(cap) + " (issue.max_bytes)");
  }
  if (!issue.ok() && issue_tries_ < ctx_->settings.issue_max_attempts) {
    log::Logger("pipeline", task_.task_id)
        .Info("issue answer {} unusable ({}); asking again", issue_tries_, issue.status().message());
    return WriteIssue();
  }
  if (!issue.ok()) {
    journal::JournalRecord rec{task_.task_id, Stage::kFailed, "issue_unparseable", attempt_};
    issue_tokens_.Record(rec);
    std::string msg = "no usable issue text in " + std::to_string(issue_tries_) +
                      " answers (issue.max_attempts); the last: " + issue.status().message();
    rec.error = journal::ErrorInfo{{journal::ErrorFamily::kModel, rec.status}, msg, false};
    return Persist({}, rec, [self, msg] { self->Finish(TaskOutcome::Kind::kModelFailure, msg); });
  }
  issue_ = *issue;
  journal::JournalRecord rec{task_.task_id, Stage::kIssueDone, "written", attempt_};
  issue_tokens_.Record(rec);
  rec.refs[journal::kRefIssue] = journal::IssueRef(task_.task_id);
  rec.extra = journal::IssueResult{demo_id, static_cast<std::uint64_t>(issue_tries_ - 1), ctx_->demos->source()};
  Persist({{journal::IssueRef(task_.task_id), *issue_}}, rec, [self] { self->Next(); });
}

void TaskRunner::RunJudge() {
  if (!rollout1_) return Finish(TaskOutcome::Kind::kInfraFailure, "rollout 1 result missing");
  const PromptLibrary& prompts = *ctx_->prompts;
  const std::string& problem = rollout1_->history.size() > 1 ? rollout1_->history[1].content : "";
  Result<std::string> summary = SummarizeTrajectory(*rollout1_, prompts);
  if (!summary.ok()) return Finish(TaskOutcome::Kind::kAbortRun, summary.status().ToString());
  Result<std::string> prompt = prompts.Judge(problem, *summary, RepairUtf8(rollout1_->patch));
  if (!prompt.ok()) return Finish(TaskOutcome::Kind::kAbortRun, prompt.status().ToString());
  const StageSettings& s = ctx_->settings;
  llm::ChatRequest req =
      ToolLessRequest(s.request_template, std::move(*prompt), s.judge_max_tokens, s.judge_temperature);
  req.seed = s.send_seed ? std::optional<std::uint64_t>(SeedFor(Numbered("judge", r1_attempt_))) : std::nullopt;
  auto self = shared_from_this();
  llm::CallOptions opts = s.call_options;
  opts.task_id = task_.task_id;
  call_ = ctx_->chat->Complete(std::move(req), opts, [self](Result<llm::ChatResponse> r) {
    self->ctx_->loop->Post([self, r = std::move(r)]() mutable {
      self->call_.reset();
      self->OnJudgeAnswer(std::move(r));
    });
  });
}

void TaskRunner::OnJudgeAnswer(Result<llm::ChatResponse> answer) {
  if (!TakeAnswer(answer, "judge")) return;
  const journal::JudgeAnswer v = ParseJudgeReply(answer->content, ctx_->prompts->judge_tag());
  const std::string status(journal::JudgeAnswerName(v));
  journal::JournalRecord rec{task_.task_id, Stage::kJudgeDone, status, attempt_};
  AnswerTokens one;
  one.Add(*answer);
  one.Record(rec);
  auto self = shared_from_this();
  if (v != journal::JudgeAnswer::kYes && r1_attempt_ < ctx_->settings.judge_max_attempts) return RetryRollout1(rec);
  Persist({}, rec, [self, v, status] {
    if (v == journal::JudgeAnswer::kYes) return self->Next();
    journal::JournalRecord skip{self->task_.task_id, Stage::kSkipped,
                                journal::SkipReasonName(journal::SkipAfterJudge(v)), self->attempt_};
    self->Persist({}, skip, [self, status] {
      self->Finish(TaskOutcome::Kind::kSkipped, "judge said " + status + " to every rollout-1 attempt");
    });
  });
}

void TaskRunner::RetryRollout1(journal::JournalRecord judged, bool p1_counted) {
  std::string path = journal::RejectedRollout1Ref(task_.task_id, r1_attempt_);
  judged.refs["rollout1_rejected" + std::to_string(r1_attempt_)] = path;
  std::string text = agent::TrajectoryToJson(*rollout1_);
  auto self = shared_from_this();
  Persist({{path, std::move(text)}}, judged, [self, p1_counted] {
    // The same rule the journal's resume state applies to a judge "no".
    journal::ForgetRejectedAttempt(&self->progress_);
    if (p1_counted && self->rollout1_ && self->rollout1_->has_patch) {
      self->ctx_->p1_hashes.erase(Sha256Hex(self->rollout1_->patch));
    }
    self->rollout1_.reset();
    self->r1_attempt_++;
    self->Next();
  });
}

}  // namespace seragen::pipeline
