#include "seragen/eval/eval_runner.h"

#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "seragen/agent/exit_status.h"
#include "seragen/agent/rollout.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/log.h"
#include "seragen/callgraph/plan.h"
#include "seragen/eval/eval_tests.h"
#include "seragen/llm/request_seed.h"
#include "seragen/verify/scores.h"

namespace seragen::eval {

std::uint64_t EvalRolloutSeed(std::uint64_t run_seed, const std::string& task_id, int seed) {
  return llm::PortableSeed(run_seed, task_id, "eval-" + std::to_string(seed));
}

EvalResult ScoreRollout(const EvalTask& task, int seed, const agent::Trajectory& t, verify::VerifyRule rule,
                        double threshold) {
  EvalResult r;
  r.task_id = task.task_id;
  r.instance_id = task.instance_id;
  r.seed = seed;
  r.exit = std::string(agent::ExitStatusName(t.exit_status));
  r.submitted = t.exit_status == agent::ExitStatus::kSubmitted;
  r.autosubmitted = t.autosubmitted;
  verify::Scores s = verify::ScorePatches(task.patch, t.has_patch ? t.patch : std::string(), rule);
  r.scorable = s.scorable;
  r.recall = s.recall;
  r.precision = s.precision;
  r.f1 = s.f1;
  // The pipeline's acceptance rule: a handed-in patch at or above the threshold.
  r.resolved = (r.submitted || r.autosubmitted) && verify::Accept(s, threshold);
  r.prompt_tokens = t.totals.prompt_tokens;
  r.completion_tokens = t.totals.completion_tokens;
  r.model_calls = t.totals.model_calls;
  r.steps = t.totals.steps;
  r.wall_seconds = t.totals.wall_seconds;
  r.trajectory = EvalTrajectoryRef(task.task_id, seed);
  r.model = t.model;
  return r;
}

std::string ReferenceSettingsKey(const EvalRunSettings& settings) {
  const pipeline::EvidenceSettings& es = settings.stage.evidence;
  return ContentId({settings.tests_key, std::to_string(es.timeout.count()), std::to_string(es.output_cap_chars)}, 16);
}

namespace {

struct Unit {
  const EvalTask* task = nullptr;
  int seed = 0;
};

// The loop-side state of one eval: a queue of units, `concurrency` slots.
class EvalScheduler : public std::enable_shared_from_this<EvalScheduler> {
 public:
  EvalScheduler(std::deque<Unit> units, EvalRunSettings settings, EvalRunDeps deps, std::function<bool()> stop,
                std::function<void(EvalRunOutcome)> finished, EvalRunOutcome outcome)
      : units_(std::move(units)),
        settings_(std::move(settings)),
        deps_(deps),
        stop_(std::move(stop)),
        finished_(std::move(finished)),
        outcome_(std::move(outcome)) {
    for (int slot = 0; slot < std::max(1, settings_.concurrency); ++slot) free_slots_.insert(slot);
  }

  void Start() {
    Fill();
    PollStop();
  }

 private:
  void PollStop() {
    if (done_) return;
    if (!stopping_ && stop_ && stop_()) {
      stopping_ = true;
      outcome_.stopped = true;
      for (auto& [slot, rollout] : running_) {
        if (rollout) rollout->Cancel();
      }
    }
    MaybeFinish();
    if (done_) return;
    auto self = shared_from_this();
    deps_.loop->RunAfter(std::chrono::milliseconds(200), [self] { self->PollStop(); });
  }

  void Fill() {
    while (!stopping_ && outcome_.abort_reason.empty() && !units_.empty() && !free_slots_.empty()) {
      int slot = *free_slots_.begin();
      free_slots_.erase(free_slots_.begin());
      Unit unit = units_.front();
      units_.pop_front();
      Launch(unit, slot);
    }
    MaybeFinish();
  }

  void MaybeFinish() {
    if (done_ || in_flight_ > 0) return;
    if (!units_.empty() && !stopping_ && outcome_.abort_reason.empty()) return;
    done_ = true;
    finished_(outcome_);
  }

  // The planned task a workspace is made for: the repository at the base commit.
  static callgraph::PlannedTask WorkspaceTask(const Unit& unit) {
    callgraph::PlannedTask t;
    t.task_id = unit.task->task_id + ".s" + std::to_string(unit.seed);
    t.repo = unit.task->repo;
    t.commit = unit.task->base_commit;
    return t;
  }

  void Launch(Unit unit, int slot) {
    ++in_flight_;
    running_[slot] = nullptr;
    auto self = shared_from_this();
    deps_.workers->Post([self, unit, slot] {
      auto ws = std::make_shared<Result<std::unique_ptr<pipeline::Workspace>>>(
          self->deps_.workspaces->Acquire(WorkspaceTask(unit), slot));
      self->deps_.loop->Post([self, unit, slot, ws] { self->OnWorkspace(unit, slot, std::move(*ws)); });
    });
  }

  void OnWorkspace(Unit unit, int slot, Result<std::unique_ptr<pipeline::Workspace>> ws) {
    if (!ws.ok()) {
      log::Logger("eval", unit.task->task_id).Warn("cannot prepare a working copy: {}", ws.status().ToString());
      ++outcome_.infra_failures;
      return Release(slot, nullptr);
    }
    if (stopping_) return Release(slot, std::move(*ws));
    std::shared_ptr<pipeline::Workspace> env(std::move(*ws));
    const pipeline::RepoFacts repo{env->repo_root(), env->test_command()};
    Result<std::string> instance = deps_.prompts->Rollout2(unit.task->problem_statement, repo);
    if (!instance.ok()) {
      outcome_.abort_reason = instance.status().ToString();
      return Release(slot, env);
    }
    const pipeline::StageSettings& s = settings_.stage;
    agent::RolloutSpec spec;
    spec.task_id = unit.task->task_id;
    spec.rollout = 2;
    spec.system_prompt = deps_.prompts->system();
    spec.instance_prompt = std::move(*instance);
    spec.prompts_hash = deps_.prompts->hash();
    spec.request_template = s.request_template;
    if (s.send_seed) spec.request_template.seed = EvalRolloutSeed(s.run_seed, unit.task->task_id, unit.seed);
    spec.call_options = s.call_options;
    spec.limits = s.limits;
    spec.prices = s.prices;
    agent::RolloutDeps rd{deps_.chat,    &env->tools(), &env->patch(),  deps_.loop,
                          deps_.workers, deps_.clock,   deps_.messages, nullptr};
    auto rollout = agent::Rollout::Create(std::move(spec), rd);
    running_[slot] = rollout;
    auto self = shared_from_this();
    rollout->Start([self, unit, slot, env](agent::Trajectory t) mutable {
      self->OnRolloutDone(unit, slot, std::move(env), std::move(t));
    });
  }

  void OnRolloutDone(Unit unit, int slot, std::shared_ptr<pipeline::Workspace> env, agent::Trajectory t) {
    running_[slot] = nullptr;
    const agent::ExitStatus exit = t.exit_status;
    if (exit == agent::ExitStatus::kCancelled || exit == agent::ExitStatus::kReplayDiverged) {
      // Cancelled by our stop: the exit says "interrupted". Otherwise (a call
      // the client cancelled on its own) it is not recorded and must be rerun.
      if (!stopping_) {
        log::Logger("eval", unit.task->task_id).Warn("rollout ended without a result: {}", t.exit_detail);
        ++outcome_.infra_failures;
      }
      return Release(slot, std::move(env));
    }
    if (agent::IsInfrastructureExit(exit)) {
      log::Logger("eval", unit.task->task_id).Warn("rollout ended on an infrastructure failure: {}", t.exit_detail);
      ++outcome_.infra_failures;
      if (exit == agent::ExitStatus::kQuota ||
          (exit == agent::ExitStatus::kConfigError && deps_.chat->RunStopStatus().has_value())) {
        outcome_.abort_reason = t.exit_detail;
      }
      return Release(slot, std::move(env));
    }
    std::optional<verify::VerifyRule> rule = verify::VerifyRuleFromName(unit.task->verify_rule);
    EvalResult result =
        ScoreRollout(*unit.task, unit.seed, t, rule.value_or(settings_.stage.verify_rule), unit.task->verify_threshold);
    auto self = shared_from_this();
    // The test evidence, durable trajectory, then the log line; off the loop.
    deps_.workers->Post([self, unit, slot, env = std::move(env), result, patch = t.has_patch ? t.patch : std::string(),
                         text = agent::TrajectoryToJson(t)]() mutable {
      env.reset();  // restores the working copy: the slot's copy is free for the test runs
      Status s = self->AddTestEvidence(unit, slot, patch, result);
      if (s.ok()) s = WriteFileAtomic(self->settings_.eval_dir + "/" + result.trajectory, text);
      if (s.ok()) s = self->deps_.log->Append(result);
      self->deps_.loop->Post([self, slot, s] {
        if (s.ok()) ++self->outcome_.finished;
        else {
          log::Logger("eval").Error("cannot record a finished rollout: {}", s.ToString());
          ++self->outcome_.infra_failures;
        }
        self->Release(slot, nullptr);
      });
    });
  }

  // The rollout's test evidence into `result` (none when evidence is off or
  // the repository has no test command). Blocking: on a worker. An error (a
  // run could not start) leaves the rollout unrecorded, for a rerun.
  Status AddTestEvidence(const Unit& unit, int slot, const std::string& patch, EvalResult& result) {
    const pipeline::EvidenceSettings& es = settings_.stage.evidence;
    if (!es.enabled) return Status::Ok();
    SG_ASSIGN_OR_RETURN(std::optional<ReferenceTests> ref, ReferenceOf(unit, slot));
    if (!ref) return Status::Ok();
    pipeline::TestRun run = ref->base;  // an empty patch changes nothing: the base run is its run
    if (!patch.empty()) {
      std::optional<pipeline::TestRun> r =
          pipeline::RunTestsOnCopy(*deps_.workspaces, WorkspaceTask(unit), slot, patch, es);
      if (!r) return Status::Ok();
      if (r->summary.status == journal::TestRunStatus::kNotStarted) {
        return UnavailableError("the tests of the rollout's patch could not start: " + r->problem);
      }
      run = std::move(*r);
    }
    result.tests = ScoreTestRun(*ref, run);
    result.tests_passed = TestsPassed(*result.tests);
    return Status::Ok();
  }

  // The task's reference runs (base, base + reference patch): from memory,
  // else from EVAL_DIR/tests, else run now (in `slot`) and journaled there;
  // nullopt when the repository has no test command. Seeds of one task
  // finishing at once wait for the first to run them.
  Result<std::optional<ReferenceTests>> ReferenceOf(const Unit& unit, int slot) {
    std::shared_ptr<TaskTests> entry;
    {
      std::lock_guard<std::mutex> lock(refs_mutex_);
      auto& e = refs_[unit.task->task_id];
      if (!e) e = std::make_shared<TaskTests>();
      entry = e;
    }
    std::lock_guard<std::mutex> lock(entry->mutex);
    if (entry->known) return entry->ref;
    SG_ASSIGN_OR_RETURN(entry->ref, ReadReferenceTests(settings_.eval_dir, unit.task->task_id, ReferenceKey()));
    if (!entry->ref) {
      SG_ASSIGN_OR_RETURN(entry->ref, RunReference(unit, slot));
    }
    entry->known = true;
    return entry->ref;
  }

  std::string ReferenceKey() const { return ReferenceSettingsKey(settings_); }

  Result<std::optional<ReferenceTests>> RunReference(const Unit& unit, int slot) {
    const pipeline::EvidenceSettings& es = settings_.stage.evidence;
    std::optional<pipeline::TestRun> runs[2];
    const std::string* patches[] = {nullptr, &unit.task->patch};
    for (int i = 0; i < 2; ++i) {
      runs[i] = pipeline::RunTestsOnCopy(*deps_.workspaces, WorkspaceTask(unit), slot,
                                         patches[i] ? *patches[i] : std::string(), es);
      if (!runs[i]) return std::optional<ReferenceTests>();
      if (runs[i]->summary.status == journal::TestRunStatus::kNotStarted) {
        return UnavailableError("the reference tests could not start: " + runs[i]->problem);
      }
    }
    ReferenceTests ref{std::move(*runs[0]), std::move(*runs[1])};
    SG_RETURN_IF_ERROR(WriteFileAtomic(ReferenceTestsPath(settings_.eval_dir, unit.task->task_id),
                                       EncodeReferenceTests(unit.task->task_id, ref, ReferenceKey())));
    return std::optional<ReferenceTests>(std::move(ref));
  }

  // Frees the slot and starts more. A workspace is restored on a worker
  // first, so that no restore is still running when the last release ends
  // the eval (the caller then tears down the pool and the workers).
  void Release(int slot, std::shared_ptr<pipeline::Workspace> env) {
    if (env) {
      auto self = shared_from_this();
      deps_.workers->Post([self, slot, env]() mutable {
        env.reset();
        self->deps_.loop->Post([self, slot] { self->Release(slot, nullptr); });
      });
      return;
    }
    running_.erase(slot);
    free_slots_.insert(slot);
    --in_flight_;
    Fill();
  }

  std::deque<Unit> units_;
  EvalRunSettings settings_;
  EvalRunDeps deps_;
  std::function<bool()> stop_;
  std::function<void(EvalRunOutcome)> finished_;
  EvalRunOutcome outcome_;
  std::set<int> free_slots_;
  std::map<int, std::shared_ptr<agent::Rollout>> running_;
  int in_flight_ = 0;
  bool stopping_ = false;
  bool done_ = false;
  // Reference runs per task, shared by the workers.
  struct TaskTests {
    std::mutex mutex;
    bool known = false;  // `ref` is what the task has (nullopt: no test command)
    std::optional<ReferenceTests> ref;
  };
  std::mutex refs_mutex_;
  std::map<std::string, std::shared_ptr<TaskTests>> refs_;
};

}  // namespace

void StartEval(const std::vector<EvalTask>& tasks, const std::vector<EvalResult>& done, const EvalRunSettings& settings,
               const EvalRunDeps& deps, std::function<bool()> stop, std::function<void(EvalRunOutcome)> finished) {
  std::set<std::pair<std::string, int>> logged;
  for (const EvalResult& r : done) logged.emplace(r.task_id, r.seed);
  EvalRunOutcome outcome;
  std::deque<Unit> units;
  // Seed-major: every task gets its first rollout before any gets a second.
  for (int seed = 0; seed < settings.seeds; ++seed) {
    for (const EvalTask& task : tasks) {
      ++outcome.planned;
      if (logged.count({task.task_id, seed})) ++outcome.done_before;
      else units.push_back({&task, seed});
    }
  }
  auto scheduler =
      std::make_shared<EvalScheduler>(std::move(units), settings, deps, std::move(stop), std::move(finished), outcome);
  scheduler->Start();
}

EvalRunOutcome RunEval(const std::vector<EvalTask>& tasks, const std::vector<EvalResult>& done,
                       const EvalRunSettings& settings, const EvalRunDeps& deps, std::function<bool()> stop) {
  std::promise<EvalRunOutcome> result;
  std::future<EvalRunOutcome> ready = result.get_future();
  deps.loop->Post([&] {
    StartEval(tasks, done, settings, deps, stop, [&result](EvalRunOutcome o) { result.set_value(std::move(o)); });
  });
  return ready.get();
}

}  // namespace seragen::eval
