#include <catch2/catch.hpp>

#include <string>

#include "seragen/eval/eval_runner.h"

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

}  // namespace
}  // namespace seragen::eval
