// Which rollouts of a run become training records, and why the others do not
// (the export rules). Decisions only: reading journals and writing files is
// the caller's job.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "seragen/agent/trajectory.h"
#include "seragen/export/record.h"
#include "seragen/verify/scores.h"

namespace seragen::exporter {

// From output.* of the run's config, CLI flags overriding.
struct ExportRules {
  bool t1 = true;
  bool t2 = true;
  bool only_submitted = true;       // exit status must be `submitted`
  std::optional<double> threshold;  // T2 threshold; default: the one recorded at verification
  // Size filters, 0 = off. Tokens are estimated as UTF-8 bytes / 4 (no tokenizer).
  std::size_t max_record_tokens = 0;  // whole conversation
  std::size_t max_patch_lines = 0;    // changed lines of the final patch, under line_rule
  // What counts as a changed line for max_patch_lines: the run's verify.rule.
  verify::VerifyRule line_rule = verify::VerifyRule::kSera;
  std::size_t max_avg_tool_output_tokens = 0;  // mean over tool results
  bool drop_malformed_think = false;           // see HasMalformedThink
  bool judge_enabled = true;                   // the run's judge.enabled: T1 then needs a judge yes
  // Only rollouts whose last test run (test_runs.h) passed; a rollout that
  // ran no tests is left out too.
  bool require_tests_passed = false;
  // Leave out rollouts where a command could not import the repository's
  // own code (RecordedTask::rollout*_env_broken).
  bool require_env_ok = false;
};

// What the run recorded about one task, as far as the rules need it.
// Trajectory pointers are borrowed for the call; null when absent or unreadable.
struct RecordedTask {
  std::string task_id;
  const agent::Trajectory* rollout1 = nullptr;
  const agent::Trajectory* rollout2 = nullptr;
  bool judge_rejected = false;           // the issue judge skipped the task
  bool judged_yes = false;               // journal::Rollout1JudgedYes for this rollout 1
  bool verified = false;                 // the task reached the verified stage
  std::optional<verify::Scores> scores;  // null when the recorded scores do not parse
  double recorded_threshold = 0.5;       // the threshold used at verification
  std::string test_command;              // the repository's environment.test_command ("" when unset)
  bool rollout1_env_broken = false;      // journal RolloutResult::env_broken > 0
  bool rollout2_env_broken = false;
};

struct Selection {
  bool t1 = false;   // write rollout 1 as a T1 record
  bool t2 = false;   // write rollout 2 as a T2 record
  Scores t2_scores;  // set when t2
};

// Exclusion reasons (summary keys), one per rule, in the order they apply.
inline constexpr const char* kDuplicateTaskId = "duplicate_task_id";
inline constexpr const char* kNotInPlan = "not_in_plan";
inline constexpr const char* kT1Missing = "t1_missing";
inline constexpr const char* kT1NotSubmitted = "t1_not_submitted";
inline constexpr const char* kT1EmptyPatch = "t1_empty_patch";
inline constexpr const char* kT1JudgeRejected = "t1_judge_rejected";
inline constexpr const char* kT1NotJudged = "t1_not_judged";
inline constexpr const char* kT1DuplicatePatch = "t1_duplicate_patch";
// Filters (the same three for T2 with the t2_ prefix).
inline constexpr const char* kT1FilterTokens = "t1_filter_record_tokens";
inline constexpr const char* kT1FilterPatchLines = "t1_filter_patch_lines";
inline constexpr const char* kT1FilterToolOutput = "t1_filter_avg_tool_output";
inline constexpr const char* kT2FilterTokens = "t2_filter_record_tokens";
inline constexpr const char* kT2FilterPatchLines = "t2_filter_patch_lines";
inline constexpr const char* kT2FilterToolOutput = "t2_filter_avg_tool_output";
inline constexpr const char* kT1MalformedThink = "t1_malformed_think";
inline constexpr const char* kT2MalformedThink = "t2_malformed_think";
inline constexpr const char* kT1TestsNotPassed = "t1_tests_not_passed";
inline constexpr const char* kT2TestsNotPassed = "t2_tests_not_passed";
inline constexpr const char* kT1EnvBroken = "t1_env_broken";
inline constexpr const char* kT2EnvBroken = "t2_env_broken";
inline constexpr const char* kT2NotVerified = "t2_not_verified";
inline constexpr const char* kT2Missing = "t2_missing";
inline constexpr const char* kT2ScoresUnreadable = "t2_scores_unreadable";
inline constexpr const char* kT2NotSubmitted = "t2_not_submitted";
inline constexpr const char* kT2BelowThreshold = "t2_below_threshold";
inline constexpr const char* kT2DuplicatePatch = "t2_duplicate_patch";
// sharegpt only (SharegptMarkupConflict): counted when the row is written.
inline constexpr const char* kT1SharegptMarkup = "t1_sharegpt_markup";
inline constexpr const char* kT2SharegptMarkup = "t2_sharegpt_markup";

// Applies the rules across every task of an export, remembering task ids and
// patches already selected so that shards and reruns merge without
// repeats. Not thread-safe; one per export.
class ExportSelector {
 public:
  explicit ExportSelector(ExportRules rules) : rules_(std::move(rules)) {}

  // False (and counted as kDuplicateTaskId) when the id was seen before.
  bool FirstSight(const std::string& task_id);
  // Counts a task excluded before its rollouts are looked at (e.g. kNotInPlan).
  void Exclude(const std::string& reason) { excluded_[reason]++; }
  Selection Select(const RecordedTask& task);

  const std::map<std::string, std::size_t>& excluded() const { return excluded_; }

 private:
  bool SelectT1(const RecordedTask& task);
  std::optional<Scores> SelectT2(const RecordedTask& task);
  // The first size filter the rollout fails (reasons for rollout 1 or 2), or null.
  const char* Filter(const agent::Trajectory& t, int rollout, const std::string& test_command) const;

  ExportRules rules_;
  std::set<std::string> seen_tasks_, seen_p1_, seen_p2_;
  std::map<std::string, std::size_t> excluded_;
};

// The T1 rule: a rollout 1 ships only with a judge "yes" for that exact
// attempt, or when the run had no judge.
bool T1JudgeAllows(const RecordedTask& task, const ExportRules& rules);

// True when the trajectory was produced by seragen's built-in scripted
// teacher (demo/test data, not real training data).
bool FromScriptedTeacher(const agent::Trajectory& t);

// True when an assistant turn's reasoning or visible text contains a
// <think> or </think> tag: wrapped in <think>…</think> it would not parse back
// into one reasoning block and one answer.
bool HasMalformedThink(const agent::Trajectory& t);

// Token estimates used by the filters: UTF-8 bytes / 4, rounded up.
std::size_t EstimateRecordTokens(const agent::Trajectory& t);
std::size_t EstimateAvgToolOutputTokens(const agent::Trajectory& t);  // 0 without tool results

}  // namespace seragen::exporter
