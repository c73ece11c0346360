#include "seragen/export/export_rules.h"

#include <catch2/catch.hpp>

namespace seragen::exporter {
namespace {

agent::Trajectory Rollout(std::string patch, agent::ExitStatus status = agent::ExitStatus::kSubmitted) {
  agent::Trajectory t;
  t.patch = std::move(patch);
  t.has_patch = !t.patch.empty();
  t.exit_status = status;
  return t;
}

verify::Scores ScoresWithF1(double f1) {
  verify::Scores s;
  s.p1_lines = 10;
  s.p2_lines = 10;
  s.matched = static_cast<std::size_t>(f1 * 10 + 0.5);
  s.recall = f1;
  s.precision = f1;
  s.f1 = f1;
  s.scorable = true;
  return s;
}

// A task whose rollouts both pass every rule.
struct Task {
  agent::Trajectory r1 = Rollout("p1");
  agent::Trajectory r2 = Rollout("p2");
  RecordedTask outcome;
  explicit Task(std::string id, double recall = 1.0) {
    outcome.task_id = std::move(id);
    outcome.rollout1 = &r1;
    outcome.rollout2 = &r2;
    outcome.verified = true;
    outcome.scores = ScoresWithF1(recall);
    outcome.recorded_threshold = 0.5;
    outcome.judged_yes = true;
  }
};

using Counts = std::map<std::string, std::size_t>;

// Every one of `reasons` counted once.
Counts OnceEach(std::initializer_list<std::string> reasons) {
  Counts counts;
  for (const std::string& reason : reasons) counts[reason] = 1;
  return counts;
}

}  // namespace

TEST_CASE("export rules: a clean task gives one T1 and one T2 record", "[export]") {
  ExportSelector sel({});
  Task t("a");
  Selection s = sel.Select(t.outcome);
  CHECK(s.t1);
  CHECK(s.t2);
  CHECK(s.t2_scores.accepted);
  CHECK(s.t2_scores.threshold == 0.5);
  CHECK(sel.excluded().empty());
}

TEST_CASE("export rules: each T1 exclusion is counted under its reason", "[export]") {
  ExportRules rules;
  rules.t2 = false;
  ExportSelector sel(rules);
  Task missing("missing"), unsubmitted("unsubmitted"), empty("empty"), judged("judged"), dup("dup"), first("first");
  missing.outcome.rollout1 = nullptr;
  unsubmitted.r1 = Rollout("u", agent::ExitStatus::kSteps);
  empty.r1 = Rollout("");
  judged.outcome.judge_rejected = true;
  judged.r1 = Rollout("judged patch");
  first.r1 = Rollout("same");
  dup.r1 = Rollout("same");
  for (Task* t : {&missing, &unsubmitted, &empty, &judged}) CHECK_FALSE(sel.Select(t->outcome).t1);
  CHECK(sel.Select(first.outcome).t1);
  CHECK_FALSE(sel.Select(dup.outcome).t1);
  CHECK(
      sel.excluded() ==
      Counts{{kT1Missing, 1}, {kT1NotSubmitted, 1}, {kT1EmptyPatch, 1}, {kT1JudgeRejected, 1}, {kT1DuplicatePatch, 1}});
}

TEST_CASE("export rules: each T2 exclusion is counted under its reason", "[export]") {
  ExportRules rules;
  rules.t1 = false;
  ExportSelector sel(rules);
  Task unverified("unverified"), missing("missing"), unreadable("unreadable"), unsubmitted("unsubmitted"),
      low("low", 0.4), first("first"), dup("dup");
  unverified.outcome.verified = false;
  missing.outcome.rollout2 = nullptr;
  unreadable.outcome.scores.reset();
  unsubmitted.r2 = Rollout("u", agent::ExitStatus::kContext);
  low.r2 = Rollout("low");
  dup.r2 = Rollout("p2");  // the same P2 as `first`
  for (Task* t : {&unverified, &missing, &unreadable, &unsubmitted, &low}) CHECK_FALSE(sel.Select(t->outcome).t2);
  CHECK(sel.Select(first.outcome).t2);
  CHECK_FALSE(sel.Select(dup.outcome).t2);
  CHECK(sel.excluded() == OnceEach({kT2NotVerified, kT2Missing, kT2ScoresUnreadable, kT2NotSubmitted, kT2BelowThreshold,
                                    kT2DuplicatePatch}));
}

TEST_CASE("export rules: only_submitted off still never accepts an unsubmitted T2", "[export]") {
  ExportRules rules;
  rules.only_submitted = false;
  ExportSelector sel(rules);
  Task t("t");
  t.r1 = Rollout("p1", agent::ExitStatus::kSteps);
  t.r2 = Rollout("p2", agent::ExitStatus::kSteps);
  Selection s = sel.Select(t.outcome);
  CHECK(s.t1);
  CHECK_FALSE(s.t2);
  CHECK(sel.excluded() == Counts{{kT2BelowThreshold, 1}});
}

TEST_CASE("export rules: require_env_ok leaves out env_broken rollouts, counted", "[export]") {
  Task t("a");
  t.outcome.rollout1_env_broken = true;
  Task u("b");
  u.r1.patch = u.r2.patch = "other";
  u.outcome.rollout2_env_broken = true;
  ExportSelector off({});
  CHECK(off.Select(t.outcome).t1);  // off by default
  ExportRules rules;
  rules.require_env_ok = true;
  ExportSelector sel(rules);
  Selection s = sel.Select(t.outcome);
  CHECK_FALSE(s.t1);
  CHECK(s.t2);
  s = sel.Select(u.outcome);
  CHECK(s.t1);
  CHECK_FALSE(s.t2);
  CHECK(sel.excluded() == OnceEach({kT1EnvBroken, kT2EnvBroken}));
}

TEST_CASE("export rules: a threshold override replaces the recorded one", "[export]") {
  ExportRules strict;
  strict.threshold = 0.9;
  ExportSelector sel(strict);
  Task t("t", 0.8);  // accepted at the recorded 0.5
  CHECK_FALSE(sel.Select(t.outcome).t2);
  CHECK(sel.excluded() == Counts{{kT2BelowThreshold, 1}});
  ExportRules lenient;
  lenient.threshold = 0.3;
  ExportSelector sel2(lenient);
  Task low("low", 0.4);  // below the recorded 0.5
  Selection s = sel2.Select(low.outcome);
  CHECK(s.t2);
  CHECK(s.t2_scores.threshold == 0.3);
}

TEST_CASE("export rules: duplicate task ids, rollouts filter, scripted teacher", "[export]") {
  ExportRules rules;
  rules.t2 = false;
  ExportSelector sel(rules);
  CHECK(sel.FirstSight("a"));
  CHECK_FALSE(sel.FirstSight("a"));
  sel.Exclude(kNotInPlan);
  Task t("b");
  Selection s = sel.Select(t.outcome);
  CHECK(s.t1);
  CHECK_FALSE(s.t2);
  CHECK(sel.excluded() == Counts{{kDuplicateTaskId, 1}, {kNotInPlan, 1}});
  agent::Trajectory traj;
  traj.model = "seragen-scripted-teacher/0.3";
  CHECK(FromScriptedTeacher(traj));
  traj.model = "qwen3-coder";
  CHECK_FALSE(FromScriptedTeacher(traj));
}

}  // namespace seragen::exporter

namespace seragen::exporter {
namespace {

agent::Trajectory Sized(std::string patch, std::size_t content_bytes, std::size_t tool_bytes) {
  agent::Trajectory t = Rollout(std::move(patch));
  t.history = {{llm::Role::kSystem, std::string(content_bytes, 's'), {}, {}, {}, {}},
               {llm::Role::kTool, std::string(tool_bytes, 'o'), {}, {}, "c1", "bash"},
               {llm::Role::kTool, "", {}, {}, "c2", "bash"}};
  return t;
}

}  // namespace

TEST_CASE("export filters: off by default, each counted under its reason", "[export]") {
  const std::string three_lines = "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n-a\n+b\n+c\n";
  Task big("big"), wide("wide"), chatty("chatty"), fine("fine");
  big.r1 = Sized("p-big", 4000, 0);       // ~1000 tokens
  wide.r1 = Sized(three_lines, 0, 0);     // 3 changed lines
  chatty.r1 = Sized("p-chatty", 0, 800);  // tool results average 100 tokens
  fine.r1 = Sized("p-fine", 400, 80);     // 120 tokens, avg 10
  for (Task* t : {&big, &wide, &chatty, &fine}) t->r2 = t->r1;

  ExportSelector unfiltered({});
  for (Task* t : {&big, &wide, &chatty, &fine}) CHECK(unfiltered.Select(t->outcome).t1);

  ExportRules rules;
  rules.max_record_tokens = 500;
  rules.max_patch_lines = 2;
  rules.max_avg_tool_output_tokens = 50;
  ExportSelector sel(rules);
  for (Task* t : {&big, &wide, &chatty}) {
    Selection s = sel.Select(t->outcome);
    CHECK_FALSE(s.t1);
    CHECK_FALSE(s.t2);
  }
  Selection s = sel.Select(fine.outcome);
  CHECK(s.t1);
  CHECK(s.t2);
  CHECK(sel.excluded() == OnceEach({kT1FilterTokens, kT1FilterPatchLines, kT1FilterToolOutput, kT2FilterTokens,
                                    kT2FilterPatchLines, kT2FilterToolOutput}));
  CHECK(EstimateRecordTokens(fine.r1) == 120);
  CHECK(EstimateAvgToolOutputTokens(fine.r1) == 10);
}

TEST_CASE("export rules: max_patch_lines counts changed lines under the run's verify rule", "[export]") {
  // Two removed "-- note" lines read "--- note" in the diff: SERA's rule takes
  // them for headers (1 changed line), the structural rule counts them (3).
  const std::string patch = "--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n--- note\n--- more\n+z\n";
  Task t("t");
  t.r1 = Sized(patch, 0, 0);
  t.r2 = t.r1;
  ExportRules rules;
  rules.max_patch_lines = 2;
  rules.line_rule = verify::VerifyRule::kSera;
  CHECK(ExportSelector(rules).Select(t.outcome).t1);
  rules.line_rule = verify::VerifyRule::kStructural;
  CHECK_FALSE(ExportSelector(rules).Select(t.outcome).t1);
}

TEST_CASE("export rules: drop_malformed_think leaves out reasoning that would not wrap cleanly", "[export]") {
  Task leaked("leaked"), nested("nested"), clean("clean");
  leaked.r1.history = {{llm::Role::kAssistant, "done </think> now", "plan", {}, {}, {}}};
  nested.r1.history = {{llm::Role::kAssistant, "ok", "a <think> inside", {}, {}, {}}};
  clean.r1.history = {{llm::Role::kAssistant, "ok", "plain reasoning", {}, {}, {}},
                      {llm::Role::kTool, "<think> in a tool result is not reasoning", {}, {}, "c", "bash"}};
  leaked.r1.patch = "p-leaked";
  nested.r1.patch = "p-nested";
  clean.r1.patch = "p-clean";
  CHECK(HasMalformedThink(leaked.r1));
  CHECK(HasMalformedThink(nested.r1));
  CHECK_FALSE(HasMalformedThink(clean.r1));
  ExportRules rules;
  rules.t2 = false;
  ExportSelector off(rules);
  for (Task* t : {&leaked, &nested, &clean}) CHECK(off.Select(t->outcome).t1);  // off by default
  rules.drop_malformed_think = true;
  ExportSelector on(rules);
  CHECK_FALSE(on.Select(leaked.outcome).t1);
  CHECK_FALSE(on.Select(nested.outcome).t1);
  CHECK(on.Select(clean.outcome).t1);
  CHECK(on.excluded() == Counts{{kT1MalformedThink, 2}});
}

}  // namespace seragen::exporter
