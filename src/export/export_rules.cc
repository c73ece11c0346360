#include "seragen/export/export_rules.h"

#include "seragen/base/hash.h"
#include "seragen/export/test_runs.h"
#include "seragen/verify/patch_lines.h"

namespace seragen::exporter {

bool ExportSelector::FirstSight(const std::string& task_id) {
  if (seen_tasks_.insert(task_id).second) return true;
  excluded_[kDuplicateTaskId]++;
  return false;
}

Selection ExportSelector::Select(const RecordedTask& task) {
  Selection s;
  if (rules_.t1) s.t1 = SelectT1(task);
  if (rules_.t2) {
    if (std::optional<Scores> scores = SelectT2(task)) {
      s.t2 = true;
      s.t2_scores = *scores;
    }
  }
  return s;
}

bool ExportSelector::SelectT1(const RecordedTask& task) {
  const agent::Trajectory* r1 = task.rollout1;
  const char* why = nullptr;
  if (r1 == nullptr) why = kT1Missing;
  else if (rules_.only_submitted && r1->exit_status != agent::ExitStatus::kSubmitted) why = kT1NotSubmitted;
  else if (!r1->has_patch) why = kT1EmptyPatch;
  else if (task.judge_rejected) why = kT1JudgeRejected;
  else if (!T1JudgeAllows(task, rules_)) why = kT1NotJudged;
  else if (rules_.require_env_ok && task.rollout1_env_broken) why = kT1EnvBroken;
  else if (const char* f = Filter(*r1, 1, task.test_command)) why = f;
  else if (!seen_p1_.insert(Sha256Hex(r1->patch)).second) why = kT1DuplicatePatch;
  if (why == nullptr) return true;
  excluded_[why]++;
  return false;
}

std::optional<Scores> ExportSelector::SelectT2(const RecordedTask& task) {
  const agent::Trajectory* r2 = task.rollout2;
  const char* why = nullptr;
  Scores sc;
  if (!task.verified) why = kT2NotVerified;
  else if (r2 == nullptr) why = kT2Missing;
  else if (!task.scores) why = kT2ScoresUnreadable;
  else {
    bool submitted = r2->exit_status == agent::ExitStatus::kSubmitted;
    double threshold = rules_.threshold.value_or(task.recorded_threshold);
    const verify::Scores& v = *task.scores;
    sc = {v.recall,
          v.precision,
          v.f1,
          v.scorable,
          submitted && verify::Accept(v, threshold),
          threshold,
          std::string(verify::VerifyRuleName(v.rule))};
    if (rules_.only_submitted && !submitted) why = kT2NotSubmitted;
    else if (!sc.accepted) why = kT2BelowThreshold;
    else if (rules_.require_env_ok && task.rollout2_env_broken) why = kT2EnvBroken;
    else if (const char* f = Filter(*r2, 2, task.test_command)) why = f;
    else if (!seen_p2_.insert(Sha256Hex(r2->patch)).second) why = kT2DuplicatePatch;
  }
  if (why == nullptr) return sc;
  excluded_[why]++;
  return std::nullopt;
}

bool T1JudgeAllows(const RecordedTask& task, const ExportRules& rules) {
  return !rules.judge_enabled || (task.judged_yes && !task.judge_rejected);
}

const char* ExportSelector::Filter(const agent::Trajectory& t, int rollout, const std::string& test_command) const {
  bool first = rollout == 1;
  if (rules_.require_tests_passed) {
    // The model's own claim counts only for the operator's own test command.
    std::optional<TestRun> run = LastTestRun(t, test_command);
    if (!run || !run->passed() || !IsConfiguredTestCommand(run->command, test_command)) {
      return first ? kT1TestsNotPassed : kT2TestsNotPassed;
    }
  }
  if (rules_.drop_malformed_think && HasMalformedThink(t)) return first ? kT1MalformedThink : kT2MalformedThink;
  if (rules_.max_record_tokens > 0 && EstimateRecordTokens(t) > rules_.max_record_tokens) {
    return first ? kT1FilterTokens : kT2FilterTokens;
  }
  if (rules_.max_patch_lines > 0 && verify::ChangedLinesOf(t.patch, rules_.line_rule).size() > rules_.max_patch_lines) {
    return first ? kT1FilterPatchLines : kT2FilterPatchLines;
  }
  if (rules_.max_avg_tool_output_tokens > 0 && EstimateAvgToolOutputTokens(t) > rules_.max_avg_tool_output_tokens) {
    return first ? kT1FilterToolOutput : kT2FilterToolOutput;
  }
  return nullptr;
}

namespace {
std::size_t Tokens(std::size_t bytes) { return (bytes + 3) / 4; }
}  // namespace

bool HasMalformedThink(const agent::Trajectory& t) {
  auto tagged = [](const std::string& s) {
    return s.find("<think>") != std::string::npos || s.find("</think>") != std::string::npos;
  };
  for (const llm::Message& m : t.history) {
    if (m.role == llm::Role::kAssistant && (tagged(m.reasoning) || tagged(m.content))) return true;
  }
  return false;
}

std::size_t EstimateRecordTokens(const agent::Trajectory& t) {
  std::size_t bytes = 0;
  for (const llm::Message& m : t.history) {
    bytes += m.content.size() + m.reasoning.size();
    for (const llm::ToolCall& c : m.tool_calls) bytes += c.name.size() + c.arguments_json.size();
  }
  return Tokens(bytes);
}

std::size_t EstimateAvgToolOutputTokens(const agent::Trajectory& t) {
  std::size_t bytes = 0, n = 0;
  for (const llm::Message& m : t.history) {
    if (m.role != llm::Role::kTool) continue;
    bytes += m.content.size();
    ++n;
  }
  return n == 0 ? 0 : Tokens(bytes / n);
}

bool FromScriptedTeacher(const agent::Trajectory& t) {
  return t.model.find("seragen-scripted-teacher") != std::string::npos;
}

}  // namespace seragen::exporter
