#include "seragen/pipeline/task_runner.h"

#include <algorithm>
#include <utility>

#include "seragen/llm/request_seed.h"

#include "pipeline/issue_stage.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/base/hash.h"
#include "seragen/base/log.h"
#include "seragen/base/rng.h"
#include "seragen/base/utf8.h"
#include "seragen/journal/outcomes.h"
#include "seragen/journal/run_paths.h"
#include "seragen/llm/failure.h"
#include "seragen/pipeline/env_health.h"
#include "seragen/pipeline/failure_blame.h"
#include "seragen/verify/scores.h"

namespace seragen::pipeline {
namespace {

using journal::Stage;

using journal::kRefIssue;
using journal::kRefRollout1;
using journal::kRefRollout2;

journal::VerificationScores RecordedScores(const verify::Scores& s) {
  return {std::string(verify::VerifyRuleName(s.rule)),
          s.p1_lines,
          s.p2_lines,
          s.matched,
          s.p2_blank,
          s.recall,
          s.precision,
          s.f1,
          s.scorable};
}

// The runner's outcome of a failure of `family` that does not stop the run.
TaskOutcome::Kind KindOf(journal::ErrorFamily family) {
  switch (family) {
    case journal::ErrorFamily::kModel: return TaskOutcome::Kind::kModelFailure;
    case journal::ErrorFamily::kConfig: return TaskOutcome::Kind::kConfigFailure;
    default: return TaskOutcome::Kind::kInfraFailure;
  }
}

}  // namespace

std::string_view TaskOutcomeKindName(TaskOutcome::Kind kind) {
  switch (kind) {
    case TaskOutcome::Kind::kVerified: return "verified";
    case TaskOutcome::Kind::kSkipped: return "skipped";  // not an outcome: the runner's kind
    case TaskOutcome::Kind::kModelFailure: return "model_failure";
    case TaskOutcome::Kind::kInfraFailure: return "infra_failure";
    case TaskOutcome::Kind::kConfigFailure: return "config_failure";
    case TaskOutcome::Kind::kCancelled: return "cancelled";
    case TaskOutcome::Kind::kAbortRun: return "abort_run";
  }
  return "?";
}

std::shared_ptr<TaskRunner> TaskRunner::Create(callgraph::PlannedTask task, const journal::TaskProgress* progress,
                                               int slot, PipelineContext* context) {
  auto runner = std::shared_ptr<TaskRunner>(new TaskRunner(std::move(task), slot, context));
  if (progress) {
    runner->progress_ = *progress;
    runner->attempt_ = std::max(1, progress->max_attempt);
    runner->r1_attempt_ = 1 + progress->judge_rejections;
    if (progress->last.stage == Stage::kFailed) runner->attempt_++;
  }
  runner->progress_.task_id = runner->task_.task_id;
  return runner;
}

TaskRunner::TaskRunner(callgraph::PlannedTask task, int slot, PipelineContext* context)
    : task_(std::move(task)), slot_(slot), ctx_(context) {}

std::uint64_t TaskRunner::SeedFor(const std::string& purpose) const {
  // 0..2^31-1: accepted unchanged by every server (a 64-bit value is refused by vLLM).
  return llm::PortableSeed(ctx_->settings.run_seed, task_.task_id, purpose);
}

std::uint64_t TaskRunner::RolloutSeed(int number) const {
  return SeedFor(number == 1 ? Numbered("rollout1", r1_attempt_) : std::string("rollout2"));
}

void TaskRunner::Start(DoneCallback done) {
  done_ = std::move(done);
  if (progress_.refs.empty()) return Next();
  LoadFromRefs();
}

void TaskRunner::Cancel() {
  cancelled_ = true;
  if (rollout_) rollout_->Cancel();
  if (call_) call_->Cancel();
}

void TaskRunner::LoadFromRefs() {
  auto self = shared_from_this();
  std::map<std::string, std::string> refs = progress_.refs.ToMap();
  ctx_->workers->Post([self, refs] {
    std::optional<agent::Trajectory> r1, r2;
    std::optional<std::string> issue;
    std::string problem;
    auto load_traj = [&](const char* role, std::optional<agent::Trajectory>& out) {
      auto it = refs.find(role);
      if (it == refs.end()) return;
      Result<std::string> text = self->ctx_->store->ReadFile(it->second);
      if (!text.ok()) {
        problem += text.status().ToString() + "; ";
        return;
      }
      Result<agent::Trajectory> t = agent::TrajectoryFromJson(*text);
      if (!t.ok()) {
        problem += it->second + ": " + t.status().ToString() + "; ";
        return;
      }
      out = std::move(*t);
    };
    load_traj(kRefRollout1, r1);
    load_traj(kRefRollout2, r2);
    if (auto it = refs.find(kRefIssue); it != refs.end()) {
      Result<std::string> text = self->ctx_->store->ReadFile(it->second);
      if (text.ok()) issue = std::move(*text);
      else problem += text.status().ToString() + "; ";
    }
    self->ctx_->loop->Post([self, r1 = std::move(r1), r2 = std::move(r2), issue = std::move(issue), problem]() mutable {
      self->rollout1_ = std::move(r1);
      self->rollout2_ = std::move(r2);
      self->issue_ = std::move(issue);
      // A stage whose result cannot be read is redone (with every stage after it).
      auto& done = self->progress_.stages_done;
      if (!self->rollout1_) done.clear();
      if (!self->issue_) {
        done.erase(Stage::kIssueDone);
        done.erase(Stage::kRollout2Done);
      }
      if (!self->rollout2_) done.erase(Stage::kRollout2Done);
      if (!problem.empty()) {
        log::Logger("pipeline", self->task_.task_id).Warn("redoing stages whose results are unreadable: {}", problem);
      }
      self->Next();
    });
  });
}

void TaskRunner::Next() {
  if (finished_) return;
  if (cancelled_) return Finish(TaskOutcome::Kind::kCancelled, "cancelled");
  const StageSettings& s = ctx_->settings;
  if (!progress_.Done(Stage::kRollout1Done)) {
    // Killed after the judge's last "no" was recorded but before the skip.
    if (s.judge_enabled && r1_attempt_ > s.judge_max_attempts) {
      const std::string why = journal::SkipReasonName(journal::SkipAfterJudge(journal::JudgeAnswer::kNo));
      journal::JournalRecord skip{task_.task_id, Stage::kSkipped, why, attempt_};
      auto self = shared_from_this();
      return Persist({}, skip, [self, why] { self->Finish(TaskOutcome::Kind::kSkipped, why); });
    }
    return RunRollout(1);
  }
  if (s.judge_enabled && !progress_.Done(Stage::kJudgeDone) && !progress_.Done(Stage::kIssueDone)) return RunJudge();
  if (!progress_.Done(Stage::kIssueDone)) return WriteIssue();
  if (!progress_.Done(Stage::kRollout2Done)) return RunRollout(2);
  Verify();
}

void TaskRunner::RunRollout(int number) {
  auto self = shared_from_this();
  journal::TurnLogHeader header;
  header.task_id = task_.task_id;
  header.rollout = number;
  header.attempt = number == 1 ? r1_attempt_ : 1;
  header.restarts = restart_.restarts;
  header.discarded_tokens = restart_.discarded_tokens;
  const bool replay_allowed = !restart_.fresh;
  restart_.fresh = false;
  ctx_->workers->Post([self, number, header, replay_allowed] {
    auto env =
        std::make_shared<Result<std::unique_ptr<Workspace>>>(self->ctx_->workspaces->Acquire(self->task_, self->slot_));
    auto resumed = std::make_shared<ResumedRollout>();
    if (env->ok()) *resumed = OpenTurnLog(self->ctx_->store, header, replay_allowed);
    self->ctx_->loop->Post([self, number, env, resumed]() mutable {
      if (!env->ok()) {
        journal::JournalRecord rec{self->task_.task_id, Stage::kFailed, "environment", self->attempt_};
        rec.error = journal::ErrorInfo{{journal::ErrorFamily::kInfra, "environment"}, env->status().ToString(), true};
        return self->Persist({}, rec, [self, msg = env->status().ToString()] {
          self->Finish(TaskOutcome::Kind::kInfraFailure, "cannot prepare a working copy: " + msg);
        });
      }
      if (self->cancelled_) return self->Finish(TaskOutcome::Kind::kCancelled, "cancelled");
      self->StartRollout(number, std::move(**env), std::move(*resumed));
    });
  });
}

void TaskRunner::StartRollout(int number, std::unique_ptr<Workspace> env, ResumedRollout resumed) {
  env_ = std::move(env);
  log::Logger logger("pipeline", task_.task_id);
  if (!resumed.restart_reason.empty()) {
    logger.Warn("rollout {}: the turn log {} cannot be replayed ({}); starting the rollout again", number, resumed.ref,
                resumed.restart_reason);
  }
  if (!resumed.warning.empty()) logger.Warn("rollout {}: {}", number, resumed.warning);
  if (!resumed.replay.empty()) {
    logger.Info("rollout {}: resuming from its turn log ({} answered model calls)", number, resumed.replay.size());
  }
  const PromptLibrary& prompts = *ctx_->prompts;
  const RepoFacts repo{env_->repo_root(), env_->test_command()};
  Result<std::string> instance = number == 1 ? prompts.Rollout1(task_.qualname, task_.file, CategoryForAttempt(), repo)
                                             : prompts.Rollout2(*issue_, repo);
  if (!instance.ok()) return Finish(TaskOutcome::Kind::kAbortRun, instance.status().ToString());
  const StageSettings& s = ctx_->settings;
  agent::RolloutSpec spec;
  spec.task_id = task_.task_id;
  spec.rollout = number;
  spec.system_prompt = prompts.system();
  spec.instance_prompt = std::move(*instance);
  spec.prompts_hash = prompts.hash();
  spec.request_template = s.request_template;
  if (s.send_seed) {
    spec.request_template.seed = RolloutSeed(number);
  }
  spec.call_options = s.call_options;
  spec.limits = s.limits;
  spec.prices = s.prices;
  const journal::TokenUsage recorded = TokensOf(resumed.replay).total;
  replay_tokens_ = recorded.prompt_tokens + recorded.completion_tokens;
  spec.replay = std::move(resumed.replay);
  turn_sink_ = std::move(resumed.sink);
  turn_header_ = resumed.header;
  turn_ref_ = resumed.ref;
  agent::RolloutDeps deps{ctx_->chat,    &env_->tools(), &env_->patch(), ctx_->loop,
                          ctx_->workers, ctx_->clock,    ctx_->messages, turn_sink_.get()};
  rollout_ = agent::Rollout::Create(std::move(spec), deps);
  auto self = shared_from_this();
  rollout_->Start([self, number](agent::Trajectory t) { self->OnRolloutDone(number, std::move(t)); });
}

void TaskRunner::RestartRollout(int number, const agent::Trajectory& discarded) {
  log::Logger("pipeline", task_.task_id)
      .Warn("rollout {}: replay from the turn log stopped ({}); starting the rollout again", number,
            discarded.exit_detail);
  restart_.restarts = turn_header_.restarts + 1;
  // Every answer of the log is thrown away, replayed or not.
  restart_.discarded_tokens = turn_header_.discarded_tokens + replay_tokens_;
  restart_.fresh = true;
  turn_sink_.reset();
  RunRollout(number);
}

void TaskRunner::DropTurnLog() {
  restart_ = RestartCarry{};
  turn_sink_.reset();
  std::string ref = std::exchange(turn_ref_, std::string());
  if (ref.empty()) return;
  RunStore* store = ctx_->store;
  std::string task_id = task_.task_id;
  ctx_->workers->Post([store, ref, task_id] {
    Status s = store->RemoveTurnLog(ref);
    if (!s.ok()) log::Logger("pipeline", task_id).Warn("{} (left in place; it is never replayed)", s.ToString());
  });
}

void TaskRunner::AddUsage(const agent::Trajectory& t) {
  journal::AddEndpointTokens(outcome_.endpoint_tokens, TokensOf(t).by_endpoint);
  outcome_.prompt_tokens += t.totals.prompt_tokens;
  outcome_.completion_tokens += t.totals.completion_tokens;
  outcome_.cached_tokens += t.totals.cached_prompt_tokens;
  outcome_.model_calls += t.totals.model_calls;
  outcome_.agent_steps += t.totals.steps;
}

void TaskRunner::OnRolloutDone(int number, agent::Trajectory t) {
  rollout_.reset();
  const std::uint64_t env_broken = env_ ? CountEnvBroken(t, env_->own_modules(), env_->repo_root()) : 0;
  // Restoring the copy may block: hand the environment to a worker.
  if (env_) {
    auto env = std::shared_ptr<Workspace>(std::move(env_));
    ctx_->workers->Post([env]() mutable { env.reset(); });
  }
  const agent::ExitStatus exit = t.exit_status;
  if (exit == agent::ExitStatus::kReplayDiverged && !cancelled_) return RestartRollout(number, t);
  AddUsage(t);
  auto self = shared_from_this();
  const std::string exit_name(agent::ExitStatusName(exit));
  if (exit == agent::ExitStatus::kCancelled || exit == agent::ExitStatus::kReplayDiverged) {
    return Finish(TaskOutcome::Kind::kCancelled, "cancelled in rollout");
  }
  if (agent::IsInfrastructureExit(exit)) {
    journal::JournalRecord rec{task_.task_id, Stage::kFailed, exit_name, attempt_};
    // The turn log keeps the answered calls for the next run, which counts them when the rollout ends.
    Minus(TokensOf(t), turn_sink_ ? turn_sink_->journaled() : AnswerTokens{}).Record(rec);
    const journal::ErrorFamily family = ClassifyFailure(exit);
    rec.error = journal::ErrorInfo{{family, exit_name}, t.exit_detail, true};
    // A configuration error fails this task (retried on rerun); the run stops
    // only once the client says so (the same error on consecutive calls).
    bool abort = exit == agent::ExitStatus::kQuota ||
                 (exit == agent::ExitStatus::kConfigError && ctx_->chat->RunStopStatus().has_value());
    // People read the outcome (the `aborted:` line, the log); the journal keeps the tagged text.
    return Persist({}, rec, [self, abort, family, detail = t.exit_words.empty() ? t.exit_detail : t.exit_words] {
      self->Finish(abort ? TaskOutcome::Kind::kAbortRun : KindOf(family), detail);
    });
  }
  std::string path = journal::TrajectoryRef(task_.task_id, number);
  std::string p1_hash = number == 1 && t.has_patch ? Sha256Hex(t.patch) : "";
  journal::JournalRecord rec{task_.task_id, number == 1 ? Stage::kRollout1Done : Stage::kRollout2Done, exit_name,
                             attempt_};
  TokensOf(t).Record(rec);
  rec.refs[number == 1 ? kRefRollout1 : kRefRollout2] = path;
  rec.timings_ms["rollout"] = static_cast<std::int64_t>(t.totals.wall_seconds * 1000);
  if (ctx_->env_health != nullptr) ctx_->env_health->Add(env_broken > 0);
  rec.extra =
      journal::RolloutResult{t.has_patch,
                             p1_hash,
                             static_cast<std::uint64_t>(t.totals.replayed_calls),
                             turn_header_.restarts,
                             static_cast<std::uint64_t>(std::max<std::int64_t>(0, turn_header_.discarded_tokens)),
                             static_cast<std::uint64_t>(std::max(0, CategoryForAttempt())),
                             RolloutSeed(number),
                             t.autosubmitted,
                             env_broken};
  // An autosubmitted rollout 1 goes on like a submitted one (EXIT_STATUSES.md, "Autosubmit").
  const bool handed_in = exit == agent::ExitStatus::kSubmitted || t.autosubmitted;
  std::string text = agent::TrajectoryToJson(t);
  if (number == 1) rollout1_ = std::move(t);
  else rollout2_ = std::move(t);
  Persist({{path, std::move(text)}}, rec, [self, number, exit, handed_in, p1_hash] {
    self->DropTurnLog();
    if (number == 2) return self->Next();
    journal::SkipReason reason;
    if (!handed_in) reason = {journal::SkipKind::kRollout1Ended, std::string(agent::ExitStatusName(exit))};
    else if (!self->rollout1_->has_patch) reason = {journal::SkipKind::kEmptyP1, ""};
    else if (!self->ctx_->p1_hashes.insert(p1_hash).second) reason = {journal::SkipKind::kDuplicateP1, ""};
    else return self->Next();
    const std::string why = journal::SkipReasonName(reason);
    // As SERA, whose judge sees every rollout 1: a rollout 1 that changed
    // nothing or ended without handing in takes the task's next attempt. It is
    // recorded as a judge_done that is not a yes (no judge call is made: such
    // a change is never valid), so resume counts the attempt.
    const StageSettings& s = self->ctx_->settings;
    if (reason.kind != journal::SkipKind::kDuplicateP1 && s.judge_enabled && self->r1_attempt_ < s.judge_max_attempts) {
      return self->RetryRollout1({self->task_.task_id, Stage::kJudgeDone, why, self->attempt_}, /*p1_counted=*/false);
    }
    journal::JournalRecord skip{self->task_.task_id, Stage::kSkipped, why, self->attempt_};
    self->Persist({}, skip, [self, why] { self->Finish(TaskOutcome::Kind::kSkipped, why); });
  });
}

void TaskRunner::Verify() {
  if (!rollout1_ || !rollout2_) return Finish(TaskOutcome::Kind::kInfraFailure, "rollout results missing");
  if (!ctx_->settings.evidence.enabled) return RecordVerified(std::nullopt);
  auto self = shared_from_this();
  ctx_->workers->Post([self, p1 = rollout1_->patch, p2 = rollout2_->patch] {
    std::optional<journal::TestEvidence> evidence =
        GatherTestEvidence(*self->ctx_->workspaces, self->task_, self->slot_, p1, p2, self->ctx_->settings.evidence);
    self->ctx_->loop->Post([self, evidence = std::move(evidence)]() mutable {
      if (self->cancelled_) return self->Finish(TaskOutcome::Kind::kCancelled, "cancelled");
      self->RecordVerified(std::move(evidence));
    });
  });
}

void TaskRunner::RecordVerified(std::optional<journal::TestEvidence> evidence) {
  verify::Scores scores = verify::ScorePatches(rollout1_->patch, rollout2_->patch, ctx_->settings.verify_rule);
  bool submitted = rollout2_->exit_status == agent::ExitStatus::kSubmitted;
  double threshold = ctx_->settings.verify_threshold;
  // An autosubmitted P2 is scored like a submitted one (SERA verifies every
  // prediction); export still keeps only plain submits by default.
  bool accepted = (submitted || rollout2_->autosubmitted) && verify::Accept(scores, threshold);
  using journal::Verdict;
  const std::string status(journal::VerdictName(!scores.scorable ? Verdict::kNotScorable
                                                : accepted       ? Verdict::kAccepted
                                                                 : Verdict::kRejected));
  journal::JournalRecord rec{task_.task_id, Stage::kVerified, status, attempt_};
  rec.extra = journal::VerificationResult{RecordedScores(scores), threshold, submitted, std::move(evidence)};
  auto self = shared_from_this();
  Persist({}, rec, [self, accepted, status] {
    self->outcome_.accepted = accepted;
    self->Finish(TaskOutcome::Kind::kVerified, status);
  });
}

void TaskRunner::FailFromChat(const Status& status, const std::string& stage) {
  llm::FailureClass fc = llm::FailureClassOf(status);
  if (fc == llm::FailureClass::kCancelled || cancelled_) return Finish(TaskOutcome::Kind::kCancelled, "cancelled");
  bool abort =
      fc == llm::FailureClass::kQuota || (fc == llm::FailureClass::kConfig && ctx_->chat->RunStopStatus().has_value());
  const journal::ErrorFamily family = ClassifyFailure(fc);
  const bool model = family == journal::ErrorFamily::kModel;
  journal::JournalRecord rec{task_.task_id, Stage::kFailed, stage, attempt_};
  rec.error =
      journal::ErrorInfo{{family, stage + "." + std::string(llm::FailureClassName(fc))}, status.ToString(), !model};
  auto self = shared_from_this();
  // People read the outcome (the `aborted:` line, the log): the code and message, without the class tag.
  const std::string msg = std::string(StatusCodeName(status.code())) + ": " + status.message();
  Persist({}, rec,
          [self, abort, family, msg] { self->Finish(abort ? TaskOutcome::Kind::kAbortRun : KindOf(family), msg); });
}

void TaskRunner::Persist(std::vector<std::pair<std::string, std::string>> files, journal::JournalRecord record,
                         std::function<void()> then) {
  auto self = shared_from_this();
  ctx_->workers->Post([self, files = std::move(files), record, then = std::move(then)]() mutable {
    Status s;
    for (const auto& [path, bytes] : files) {
      s = self->ctx_->store->WriteFile(path, bytes);
      if (!s.ok()) break;
    }
    if (s.ok()) s = self->ctx_->store->Append(record);
    self->ctx_->loop->Post([self, s, record, then = std::move(then)] {
      if (!s.ok()) return self->Finish(TaskOutcome::Kind::kInfraFailure, "cannot record progress: " + s.ToString());
      self->progress_.stages_done.insert(record.stage);
      for (const auto& [role, path] : record.refs) self->progress_.refs.Set(role, path);
      self->progress_.last = journal::LatestRecord(record);
      then();
    });
  });
}

void TaskRunner::Finish(TaskOutcome::Kind kind, std::string detail) {
  if (finished_) return;
  finished_ = true;
  if (env_) {
    auto env = std::shared_ptr<Workspace>(std::move(env_));
    ctx_->workers->Post([env]() mutable { env.reset(); });
  }
  outcome_.kind = kind;
  outcome_.detail = std::move(detail);
  DoneCallback done = std::move(done_);
  done(outcome_);
}

}  // namespace seragen::pipeline
