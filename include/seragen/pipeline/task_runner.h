// TaskRunner: one task's state machine (docs/DESIGN.md §1): rollout 1 → judge
// (a "no" starts rollout 1 again, up to judge_max_attempts in all) → issue →
// rollout 2 → verify, with no barrier to other tasks.
//
// Each finished stage is made durable (files, then a journal record) before
// the next starts, so a resumed task restarts after its last done stage.
// Runs on `loop`: callbacks from the chat client and workers are posted
// there. `done` runs exactly once, on `loop`.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "seragen/agent/agent_messages.h"
#include "seragen/agent/rollout.h"
#include "seragen/agent/trajectory.h"
#include "seragen/base/clock.h"
#include "seragen/base/executor.h"
#include "seragen/callgraph/plan.h"
#include "seragen/demos/demo_issues.h"
#include "seragen/journal/resume_state.h"
#include "seragen/llm/chat_client.h"
#include "seragen/pipeline/answer_tokens.h"
#include "seragen/pipeline/env_health.h"
#include "seragen/pipeline/prompt_library.h"
#include "seragen/pipeline/run_store.h"
#include "seragen/pipeline/test_evidence.h"
#include "seragen/pipeline/turn_log_sink.h"
#include "seragen/pipeline/workspace.h"
#include "seragen/verify/scores.h"

namespace seragen::pipeline {

struct StageSettings {
  std::uint64_t run_seed = 0;
  llm::ChatRequest request_template;  // model, sampling, max_tokens, tool_choice, extra body
  llm::CallOptions call_options;
  bool send_seed = true;
  agent::RolloutLimits limits;
  PriceBook prices;  // agent.max_cost_usd's meter (config/prices.h)
  double issue_temperature = 0.6;
  std::int64_t issue_max_tokens = 4096;
  int issue_max_attempts = 10;  // writer requests until one holds a non-empty issue tag
  // A longer issue text is unusable (asked again, like a missing tag): it is
  // stored and sent in every rollout-2 request. 0 = no cap.
  std::size_t issue_max_bytes = 65536;
  bool judge_enabled = true;
  double judge_temperature = 0.6;
  std::int64_t judge_max_tokens = 4096;
  int judge_max_attempts = 3;  // rollout-1 attempts in all, each judged
  double verify_threshold = 0.5;
  verify::VerifyRule verify_rule = verify::VerifyRule::kSera;
  // seragen's own test runs before the verified record (off unless the run
  // turns them on: verify.test_evidence).
  EvidenceSettings evidence{.enabled = false};
};

// Shared by all tasks of a run. Owned by the scheduler; touched on `loop` only.
struct PipelineContext {
  const PromptLibrary* prompts = nullptr;
  const demos::DemoIssuePool* demos = nullptr;
  const agent::AgentMessages* messages = nullptr;
  llm::ChatClient* chat = nullptr;
  WorkspaceFactory* workspaces = nullptr;
  RunStore* store = nullptr;
  Executor* loop = nullptr;
  Executor* workers = nullptr;
  const Clock* clock = nullptr;
  StageSettings settings;
  // SHA-256 of every P1 seen in this shard, for the early stop on duplicates.
  std::set<std::string> p1_hashes;
  // Every finished rollout is added here (env_health.h); null: not counted.
  EnvHealthTally* env_health = nullptr;
};

struct TaskOutcome {
  // In the order of their names (TaskOutcomeKindName). Failures are
  // classified by pipeline::ClassifyFailure (failure_blame.h).
  enum class Kind {
    kAbortRun,       // configuration or quota error: the whole run must stop
    kCancelled,      // shutdown: resumes from the last durable stage
    kConfigFailure,  // the endpoint refused our configuration for this task: retried on resume
    kInfraFailure,   // endpoint/sandbox/disk failure: retried on resume
    kModelFailure,   // the model could not do a stage (unparseable issue, context overflow, ...)
    kSkipped,        // stopped on purpose: no P1, duplicate P1, judge said no, rollout-2 ended unsubmitted
    kVerified,       // rollout 2 scored (accepted or not)
  };
  Kind kind = Kind::kVerified;
  std::string detail;
  bool accepted = false;  // kVerified only
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;
  // The answered tokens by endpoint, for the scheduler's cost meter, which
  // prices each endpoint's at its own price.
  journal::EndpointTokens endpoint_tokens;
  int model_calls = 0;
  int agent_steps = 0;
};

std::string_view TaskOutcomeKindName(TaskOutcome::Kind kind);

class TaskRunner : public std::enable_shared_from_this<TaskRunner> {
 public:
  using DoneCallback = std::function<void(TaskOutcome)>;

  // `progress`: what the journal says about this task (nullptr: fresh).
  static std::shared_ptr<TaskRunner> Create(callgraph::PlannedTask task, const journal::TaskProgress* progress,
                                            int slot, PipelineContext* context);
  void Start(DoneCallback done);
  void Cancel();

 private:
  TaskRunner(callgraph::PlannedTask task, int slot, PipelineContext* context);

  void Next();
  void RunRollout(int number);
  // On loop, with the environment and the rollout's turn log ready.
  void StartRollout(int number, std::unique_ptr<Workspace> env, ResumedRollout resumed);
  void OnRolloutDone(int number, agent::Trajectory trajectory);
  // A resumed rollout that no longer matches its turn log: start it again from scratch.
  void RestartRollout(int number, const agent::Trajectory& discarded);
  // After the rollout's done record: its turn log is no longer needed.
  void DropTurnLog();
  void WriteIssue();
  void OnIssueAnswer(Result<llm::ChatResponse> answer, const std::string& demo_id);
  void RunJudge();
  void OnJudgeAnswer(Result<llm::ChatResponse> answer);
  // A judge "no" with attempts left: keeps the rejected trajectory, then rollout 1 again.
  // Keeps the rejected attempt's trajectory, records `judged` (a judge_done
  // that is not a yes) and starts the next rollout-1 attempt. `p1_counted`:
  // the attempt's patch hash is in the run's P1 set and leaves it.
  void RetryRollout1(journal::JournalRecord judged, bool p1_counted = true);
  // The bug category of the current rollout-1 attempt: the planned one first,
  // then a different one per attempt while categories last.
  int CategoryForAttempt() const;
  // The common part of a tool-less stage's answer: false (and the task
  // finished or failed) when there is nothing to go on with; else counts it.
  bool TakeAnswer(const Result<llm::ChatResponse>& answer, const char* stage);
  // `purpose` for attempt 1 (the seeds of older runs), "<purpose>.<n>" after.
  static std::string Numbered(const std::string& purpose, int n);
  // Gathers the test evidence on a worker (when on), then RecordVerified.
  void Verify();
  // Scores P1 against P2 and records `verified` with the evidence.
  void RecordVerified(std::optional<journal::TestEvidence> evidence);
  void LoadFromRefs();

  // Writes files (path → bytes) then appends `record`, on a worker; then `then` on loop.
  void Persist(std::vector<std::pair<std::string, std::string>> files, journal::JournalRecord record,
               std::function<void()> then);
  void Finish(TaskOutcome::Kind kind, std::string detail);
  void FailFromChat(const Status& status, const std::string& stage);
  std::uint64_t SeedFor(const std::string& purpose) const;
  // The sampling seed of rollout `number` (of the current rollout-1 attempt).
  std::uint64_t RolloutSeed(int number) const;
  void AddUsage(const agent::Trajectory& t);

  callgraph::PlannedTask task_;
  int slot_;
  PipelineContext* ctx_;
  DoneCallback done_;
  journal::TaskProgress progress_;  // refs and done stages, kept up to date
  TaskOutcome outcome_;
  int attempt_ = 1;      // resume attempt (bumped after a retryable failure)
  int r1_attempt_ = 1;   // rollout-1 attempt: 1 + the judge's "no" answers so far
  int issue_tries_ = 0;  // issue-writer requests made in this process
  AnswerTokens issue_tokens_;
  bool cancelled_ = false;
  bool finished_ = false;

  // Stage results (loaded from refs when resuming).
  std::optional<agent::Trajectory> rollout1_;
  std::optional<std::string> issue_;
  std::optional<agent::Trajectory> rollout2_;
  std::unique_ptr<Workspace> env_;
  std::shared_ptr<agent::Rollout> rollout_;
  std::shared_ptr<llm::CallHandle> call_;
  // The turn log of the rollout in flight (nullptr: not journaled).
  std::unique_ptr<TurnLogSink> turn_sink_;
  journal::TurnLogHeader turn_header_;
  std::string turn_ref_;            // its shard-relative name, until the done record is durable
  std::int64_t replay_tokens_ = 0;  // prompt + completion tokens of the answers it replays
  // Carried into the next rollout's new turn log after a restart; `fresh`:
  // do not replay (the log was just found unusable).
  struct RestartCarry {
    std::uint64_t restarts = 0;
    std::int64_t discarded_tokens = 0;
    bool fresh = false;
  };
  RestartCarry restart_;
};

}  // namespace seragen::pipeline
