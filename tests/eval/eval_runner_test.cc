#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "pipeline/pipeline_fakes.h"
#include "seragen/eval/eval_runner.h"
#include "seragen/eval/eval_tests.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::eval {
namespace {

constexpr const char* kReference =
    "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n";

agent::Trajectory Rollout(const std::string& patch, agent::ExitStatus exit) {
  agent::Trajectory t;
  t.patch = patch;
  t.has_patch = !patch.empty();
  t.exit_status = exit;
  t.totals.prompt_tokens = 50;
  t.totals.wall_seconds = 1.5;
  return t;
}

TEST_CASE("eval runner: a rollout resolves a task as the run accepts rollout 2", "[eval]") {
  EvalTask task;
  task.task_id = "t";
  task.instance_id = "r__t";
  task.patch = kReference;
  auto score = [&](const agent::Trajectory& t) { return ScoreRollout(task, 1, t, verify::VerifyRule::kSera, 0.5); };
  EvalResult same = score(Rollout(kReference, agent::ExitStatus::kSubmitted));
  CHECK(same.resolved);
  CHECK(same.recall == 1.0);
  CHECK(same.trajectory == "trajectories/t.s1.json");
  CHECK(same.prompt_tokens == 50);
  EvalResult other = score(Rollout("diff --git a/a.py b/a.py\n@@ -1 +1 @@\n-y\n+z\n", agent::ExitStatus::kSubmitted));
  CHECK_FALSE(other.resolved);
  CHECK(other.recall == 0.0);
  // The same patch left unsubmitted by a format failure does not count; an autosubmitted one does.
  CHECK_FALSE(score(Rollout(kReference, agent::ExitStatus::kFormat)).resolved);
  agent::Trajectory auto_submitted = Rollout(kReference, agent::ExitStatus::kSteps);
  auto_submitted.autosubmitted = true;
  CHECK(score(auto_submitted).resolved);
  CHECK_FALSE(score(Rollout("", agent::ExitStatus::kSubmitted)).resolved);
}

TEST_CASE("eval runner: request seeds are fixed per (run seed, task, seed) and differ between seeds", "[eval]") {
  CHECK(EvalRolloutSeed(1, "t", 0) == EvalRolloutSeed(1, "t", 0));
  CHECK(EvalRolloutSeed(1, "t", 0) != EvalRolloutSeed(1, "t", 1));
  CHECK(EvalRolloutSeed(1, "t", 0) != EvalRolloutSeed(2, "t", 0));
  CHECK(EvalRolloutSeed(1, "t", 0) <= 0x7fffffffULL);
}

// The scheduler with a scripted model and workspaces, a real log in a temp
// directory, run on queue executors until it reports.
struct EvalFixture {
  std::string prompts_dir = seragen::testing::SourcePath("prompts");
  pipeline::PromptLibrary prompts = *pipeline::PromptLibrary::Load(prompts_dir, config::PromptsConfig{});
  agent::AgentMessages messages = *agent::AgentMessages::Load(prompts_dir + "/format_errors");
  llm::FakeChatClient chat;
  pipeline::testing::ScriptedEnvironments envs;
  FakeClock clock;
  QueueExecutor loop{clock};
  QueueExecutor workers;
  seragen::testing::TempDir dir;
  EvalLog log = *EvalLog::Open(dir.path(), {"m", "", "/runs/a", "sera", 0.5});
  EvalRunSettings settings;
  pipeline::WorkspaceFactory* factory = &envs;  // where rollouts and test runs get their workspaces

  EvalFixture() {
    settings.stage.request_template.model = "m";
    settings.seeds = 2;
    settings.concurrency = 3;
    settings.eval_dir = dir.path();
  }

  EvalRunOutcome Run(const std::vector<EvalTask>& tasks, const std::vector<EvalResult>& done = {}) {
    EvalRunDeps deps{&prompts, &messages, &chat, factory, &loop, &workers, &clock, &log};
    std::optional<EvalRunOutcome> out;
    loop.Post([&] {
      StartEval(
          tasks, done, settings, deps, [] { return false; }, [&](EvalRunOutcome o) { out = o; });
    });
    while (!out) {
      if (!loop.RunOne() && !workers.RunOne() && !loop.FireNextTimer()) break;
    }
    workers.RunUntilIdle();
    REQUIRE(out.has_value());
    return *out;
  }
};

EvalTask Task(const std::string& id, const std::string& issue) {
  EvalTask t;
  t.task_id = id;
  t.instance_id = "r__" + id;
  t.problem_statement = issue;
  t.patch = kReference;
  t.verify_rule = "sera";
  t.verify_threshold = 0.5;
  return t;
}

bool Mentions(const llm::ChatRequest& req, const std::string& text) {
  for (const llm::Message& m : req.messages) {
    if (m.content.find(text) != std::string::npos) return true;
  }
  return false;
}

// A rollout that ends cancelled while nobody asked the eval to stop (a call
// the client cancelled on its own) is neither recorded nor silently dropped:
// it counts as an infrastructure failure, so the command exits 3 and a rerun
// runs it.
TEST_CASE("eval runner: every rollout is recorded or left to a rerun, none vanishes", "[eval]") {
  EvalFixture f;
  f.chat.SetHandler([](const llm::ChatRequest& req) -> Result<llm::ChatResponse> {
    if (Mentions(req, "cancelled on its own")) return llm::MakeFailure(llm::FailureClass::kCancelled, "call cancelled");
    return llm::MakeToolCallResponse("submit", "{}");
  });
  std::vector<EvalTask> tasks = {Task("t0", "Saving twice loses data."), Task("t1", "A call cancelled on its own."),
                                 Task("t2", "Reading an empty file crashes.")};
  EvalRunOutcome o = f.Run(tasks);
  CHECK(o.planned == 6);
  CHECK(o.finished == 4);
  CHECK(o.infra_failures == 2);
  CHECK_FALSE(o.stopped);
  auto read = ReadEvalLog(f.dir.path());
  REQUIRE(read.ok());
  CHECK(read->results.size() == 4);
  for (const EvalResult& r : read->results) CHECK(r.task_id != "t1");
}

// JUnit reports of tests a and b of the fake repository.
std::string Report(bool a_passes, bool b_passes) {
  auto one = [](const char* name, bool passes) {
    return std::string("<testcase classname=\"tests.test_m\" name=\"") + name + "\">" +
           (passes ? "" : "<failure message=\"x\"/>") + "</testcase>";
  };
  return "<testsuite>" + one("test_a", a_passes) + one("test_b", b_passes) + "</testsuite>";
}

constexpr const char* kBreaksA =
    "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x = 1\n+assert False\n";
constexpr const char* kQuiet = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x = 1\n+# note\n";

// Every rollout hands in the scripted workspaces' patch1, which breaks test_b;
// kBreaksA breaks test_a; other patches break nothing.
struct TestsFixture : EvalFixture {
  TestsFixture() {
    envs.test_command = "python -m pytest -q";
    settings.stage.evidence.enabled = true;
    chat.SetHandler([](const llm::ChatRequest&) { return llm::MakeToolCallResponse("submit", "{}"); });
    envs.tests.run = [this](const std::string& patch, const std::string&) {
      sandbox::CommandResult r;
      r.output = Report(patch != kBreaksA, patch != envs.patch1);
      r.exit_code = patch.empty() ? 0 : 1;
      return r;
    };
  }
  EvalTask WithReference(const std::string& id, const std::string& reference) {
    EvalTask t = Task(id, "Issue " + id + ".");
    t.patch = reference;
    return t;
  }
  std::map<std::string, std::optional<bool>> Passed() {
    std::map<std::string, std::optional<bool>> out;
    auto log = ReadEvalLog(dir.path());
    REQUIRE(log.ok());
    for (const EvalResult& r : log->results) {
      INFO(EncodeEvalResult(r));
      REQUIRE(r.tests.has_value());
      out[r.task_id + ".s" + std::to_string(r.seed)] = r.tests_passed;
    }
    return out;
  }
};

TEST_CASE("eval runner: rollouts are scored with seragen's own test runs, the reference's run once per task",
          "[eval]") {
  TestsFixture f;
  f.settings.seeds = 1;
  // "same": the rollout's patch is the reference; "other": the reference breaks
  // test_a, the rollout test_b; "quiet": the reference changes no test.
  const std::vector<EvalTask> tasks = {f.WithReference("same", f.envs.patch1), f.WithReference("other", kBreaksA),
                                       f.WithReference("quiet", kQuiet)};
  EvalRunOutcome o = f.Run(tasks);
  CHECK(o.finished == 3);
  CHECK(o.infra_failures == 0);
  using P = std::map<std::string, std::optional<bool>>;
  CHECK(f.Passed() == P{{"same.s0", true}, {"other.s0", false}, {"quiet.s0", std::nullopt}});
  auto log = ReadEvalLog(f.dir.path());
  for (const EvalResult& r : log->results) {
    if (r.task_id == "quiet") CHECK(r.tests->agreement.verdict == verify::TestVerdict::kNoSignal);
    if (r.task_id == "other") CHECK(r.tests->agreement.regressed == 1);
  }
  // Per task: base and reference once, then the rollout; all three journaled.
  CHECK(f.envs.tests.commands.size() == 9);
  for (const EvalTask& t : tasks)
    CHECK(ReadReferenceTests(f.dir.path(), t.task_id, ReferenceSettingsKey(f.settings))->has_value());

  // A second seed, resumed from the log by a new eval: the reference runs are
  // read back, not run again; only the new rollouts' tests run.
  f.settings.seeds = 2;
  o = f.Run(tasks, log->results);
  CHECK(o.done_before == 3);
  CHECK(o.finished == 3);
  CHECK(f.envs.tests.commands.size() == 12);
  CHECK(f.Passed() == P{{"same.s0", true},
                        {"other.s0", false},
                        {"quiet.s0", std::nullopt},
                        {"same.s1", true},
                        {"other.s1", false},
                        {"quiet.s1", std::nullopt}});
}

TEST_CASE("eval runner: without a test command or with evidence off, rollouts carry no test evidence", "[eval]") {
  for (bool command : {false, true}) {
    TestsFixture f;
    f.settings.seeds = 1;
    if (command) f.settings.stage.evidence.enabled = false;
    else f.envs.test_command.clear();
    f.Run({f.WithReference("same", f.envs.patch1)});
    auto log = ReadEvalLog(f.dir.path());
    REQUIRE(log->results.size() == 1);
    CHECK_FALSE(log->results[0].tests.has_value());
    CHECK_FALSE(log->results[0].tests_passed.has_value());
    CHECK(f.envs.tests.commands.empty());
  }
}

TEST_CASE("eval runner: a rollout whose tests cannot start is not recorded, left to a rerun", "[eval]") {
  TestsFixture f;
  f.settings.seeds = 1;
  // The rollout's workspace comes, the evidence's do not.
  struct FailAfterFirst : pipeline::WorkspaceFactory {
    pipeline::testing::ScriptedEnvironments* envs;
    int n = 0;
    Result<std::unique_ptr<pipeline::Workspace>> Acquire(const callgraph::PlannedTask& task, int slot) override {
      if (++n > 1) return UnavailableError("pool exhausted");
      return envs->Acquire(task, slot);
    }
  } failing;
  failing.envs = &f.envs;
  f.factory = &failing;
  EvalRunOutcome o = f.Run({f.WithReference("same", f.envs.patch1)});
  CHECK(o.finished == 0);
  CHECK(o.infra_failures == 1);
  CHECK(ReadEvalLog(f.dir.path())->results.empty());
  CHECK_FALSE(ReadReferenceTests(f.dir.path(), "same", ReferenceSettingsKey(f.settings))->has_value());
}

}  // namespace
}  // namespace seragen::eval
