// `seragen eval`'s work: the rollout-2 harness of data generation (same
// system and instance prompts, tools, sandbox, environment, limits) run with
// the evaluated model on every eval task, `seeds` times each, each rollout
// scored against the task's reference patch with the run's soft-verification
// rule (docs/EVAL.md).
//
// The agent sees the problem statement and a clean working copy at the base
// commit, nothing else: no reference patch, no trajectory, no later history.
// Every finished rollout is made durable (trajectory file, then a line of
// EVAL_DIR/results.jsonl) before it counts; a rerun skips what the log holds.
// Runs on `loop` like the pipeline (workspaces acquired and released on
// `workers`); RunEval blocks its caller until the work ends or stops.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "seragen/agent/agent_messages.h"
#include "seragen/base/clock.h"
#include "seragen/base/executor.h"
#include "seragen/eval/eval_log.h"
#include "seragen/eval/eval_task.h"
#include "seragen/llm/chat_client.h"
#include "seragen/pipeline/prompt_library.h"
#include "seragen/pipeline/task_runner.h"
#include "seragen/pipeline/workspace.h"

namespace seragen::eval {

struct EvalRunSettings {
  // Request template (model, sampling), call options, limits, pricing, seed
  // policy and verification rule of the run's rollout 2 (agent section).
  pipeline::StageSettings stage;
  int seeds = 3;
  int concurrency = 4;
  std::string eval_dir;
  // What the reference test runs depend on besides the task and the
  // evidence settings (the environments and their test commands): a task's
  // reference runs made under another key are made again.
  std::string tests_key;
};

// The key a task's reference test runs are filed under (eval_tests.h): the
// settings' tests_key with the evidence timeout and output cap.
std::string ReferenceSettingsKey(const EvalRunSettings& settings);

struct EvalRunDeps {
  const pipeline::PromptLibrary* prompts = nullptr;
  const agent::AgentMessages* messages = nullptr;
  llm::ChatClient* chat = nullptr;
  pipeline::WorkspaceFactory* workspaces = nullptr;
  Executor* loop = nullptr;
  Executor* workers = nullptr;
  const Clock* clock = nullptr;
  EvalLog* log = nullptr;
};

struct EvalRunOutcome {
  std::size_t planned = 0;         // tasks x seeds
  std::size_t done_before = 0;     // in the log when the run started
  std::size_t finished = 0;        // finished now (logged)
  std::size_t infra_failures = 0;  // not logged: retried by a rerun
  bool stopped = false;            // a stop request ended it early
  std::string abort_reason;        // configuration or quota error: nothing more was started
};

// The request seed of one (task, seed) rollout: deterministic in the run seed.
std::uint64_t EvalRolloutSeed(std::uint64_t run_seed, const std::string& task_id, int seed);

// Scores a finished rollout against `task`'s reference (no I/O).
EvalResult ScoreRollout(const EvalTask& task, int seed, const agent::Trajectory& rollout, verify::VerifyRule rule,
                        double threshold);

// Starts every (task, seed) that `done` (the log's results) lacks; call on
// `deps.loop`. `stop` is polled there: once it is true no rollout starts and
// those in flight are cancelled (not logged). `finished` runs once, on `loop`.
void StartEval(const std::vector<EvalTask>& tasks, const std::vector<EvalResult>& done, const EvalRunSettings& settings,
               const EvalRunDeps& deps, std::function<bool()> stop, std::function<void(EvalRunOutcome)> finished);

// StartEval posted to `deps.loop`, waited for on the calling thread (which
// must not be the loop's).
EvalRunOutcome RunEval(const std::vector<EvalTask>& tasks, const std::vector<EvalResult>& done,
                       const EvalRunSettings& settings, const EvalRunDeps& deps, std::function<bool()> stop);

}  // namespace seragen::eval
