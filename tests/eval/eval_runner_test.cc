#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "pipeline/pipeline_fakes.h"
#include "seragen/eval/eval_runner.h"
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

  EvalFixture() {
    settings.stage.request_template.model = "m";
    settings.seeds = 2;
    settings.concurrency = 3;
    settings.eval_dir = dir.path();
  }

  EvalRunOutcome Run(const std::vector<EvalTask>& tasks) {
    EvalRunDeps deps{&prompts, &messages, &chat, &envs, &loop, &workers, &clock, &log};
    std::optional<EvalRunOutcome> out;
    loop.Post([&] {
      StartEval(
          tasks, {}, settings, deps, [] { return false; }, [&](EvalRunOutcome o) { out = o; });
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

}  // namespace
}  // namespace seragen::eval
