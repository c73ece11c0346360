#include "seragen/pipeline/reports.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "seragen/agent/trajectory_json.h"
#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/callgraph/plan.h"
#include "seragen/config/loader.h"
#include "seragen/config/prompt_files.h"
#include "seragen/export/export_rules.h"
#include "seragen/journal/result_files.h"
#include "seragen/journal/resume_state.h"
#include "seragen/journal/run_journals.h"
#include "seragen/journal/run_paths.h"
#include "seragen/pipeline/run_result.h"
#include "seragen/verify/scores.h"

namespace seragen::pipeline {
namespace {

using journal::Stage;

// Seconds since the epoch of an ISO-8601 "YYYY-MM-DDTHH:MM:SS.mmmZ" stamp (0 if malformed).
double ParseIso(const std::string& s) {
  std::tm tm{};
  int ms = 0;
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec, &ms) < 6) {
    return 0;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm)) + ms / 1000.0;
}

bool IsInfraClass(const std::string& cls) { return cls.rfind("infra.", 0) == 0; }

Result<std::vector<callgraph::PlannedTask>> ReadPlan(const std::string& run_dir) {
  return callgraph::ReadTasksFile(journal::TasksPath(run_dir));
}

// Pricing and category names come from the run's saved config (defaults when
// it is missing or does not load: status still reports everything else).
void AddBreakdown(const std::string& run_dir, const std::vector<callgraph::PlannedTask>& plan,
                  const std::vector<journal::ShardJournal>& shards, StatusReport* r) {
  config::PricingConfig pricing;
  std::string prompts_dir = config::DataDir() + "/prompts";
  if (auto loaded = LoadSavedConfig(run_dir); loaded.ok()) {
    pricing = loaded->config.llm.pricing;
    if (!loaded->config.prompts.dir.empty()) prompts_dir = loaded->config.prompts.dir;
    const config::BudgetConfig& b = loaded->config.budget;
    r->budget = {b.max_tasks, b.max_tokens, b.max_cost_usd};
  }
  std::vector<std::string> names;
  if (auto c = config::LoadCategoryPrompts(prompts_dir + "/categories.yaml"); c.ok()) {
    for (const auto& cat : *c) names.push_back(cat.topic);
  }
  r->breakdown =
      ComputeBreakdown(plan, shards, names, pricing, r->prompt_tokens, r->cached_tokens, r->completion_tokens);
  r->budget_used = {static_cast<std::int64_t>(r->started), r->prompt_tokens + r->completion_tokens,
                    r->breakdown.cost_usd};
}

}  // namespace

Result<config::LoadedConfig> LoadSavedConfig(const std::string& run_dir) {
  const std::string path = journal::ConfigYamlPath(run_dir);
  SG_ASSIGN_OR_RETURN(std::string text, ReadRegularFile(path, kMaxSavedConfigBytes));
  return config::LoadConfigText(text, path);
}

Result<StatusReport> ReadStatus(const std::string& run_dir) {
  SG_ASSIGN_OR_RETURN(auto plan, ReadPlan(run_dir));
  SG_ASSIGN_OR_RETURN(auto shards, journal::LoadRunJournals(run_dir));
  return StatusFromJournals(run_dir, plan, shards);
}

namespace {

// Autosubmitted rollouts are counted apart from plain exits of the same limit.
void CountRolloutExit(const journal::JournalRecord& rec, StatusReport* r) {
  const journal::RolloutResult* rr = rec.rollout();
  const bool autosubmitted = rr != nullptr && rr->autosubmitted;
  std::optional<agent::ExitStatus> exit = agent::ParseExitStatus(rec.status);
  r->rollout_exits[exit ? agent::OutcomeName(*exit, autosubmitted) : rec.status]++;
  if (autosubmitted) r->autosubmitted++;
}

}  // namespace

StatusReport StatusFromJournals(const std::string& run_dir, const std::vector<callgraph::PlannedTask>& plan,
                                const std::vector<journal::ShardJournal>& shards) {
  StatusReport r;
  r.planned = plan.size();
  r.shards = shards.size();
  double first = 0, last = 0;
  for (const auto& shard : shards) {
    if (shard.journal.dropped_tail_bytes > 0) r.torn_tails++;
    for (const auto& rec : shard.journal.records) {
      r.prompt_tokens += rec.tokens.prompt_tokens;
      r.completion_tokens += rec.tokens.completion_tokens;
      r.cached_tokens += rec.tokens.cached_prompt_tokens;
      r.model_calls += rec.tokens.calls;
      if (rec.stage == Stage::kRollout1Done || rec.stage == Stage::kRollout2Done) CountRolloutExit(rec, &r);
      double t = ParseIso(rec.at);
      if (t > 0) {
        first = first == 0 ? t : std::min(first, t);
        last = std::max(last, t);
      }
    }
    AccountTokens(shard.journal.records, &r.tokens);
    journal::ResumeState state = journal::ResumeState::Fold(shard.journal.records);
    for (const auto& [id, p] : state.tasks()) {
      r.started++;
      if (p.finished) r.finished++;
      r.by_stage[std::string(journal::StageName(p.last.stage))]++;
      if (p.last.stage == Stage::kVerified) r.verified[p.last.status]++;
      if (p.last.stage == Stage::kSkipped) r.skipped[p.last.status]++;
      if (p.last.stage == Stage::kFailed && p.last.error) {
        (IsInfraClass(p.last.error->error_class) ? r.infra_failures : r.model_failures)[p.last.error->error_class]++;
      }
    }
  }
  TaskTally tally;
  tally.planned = r.planned;
  tally.done = r.finished;
  for (const auto& [k, n] : r.infra_failures) tally.infra_failed += n;
  r.result = std::string(RunResultName(ClassifyTally(tally)));
  std::size_t verified = 0;
  for (const auto& [k, n] : r.verified) verified += n;
  r.acceptance_rate = verified ? static_cast<double>(r.verified["accepted"]) / static_cast<double>(verified) : 0;
  if (last > first && r.finished > 0) {
    r.tasks_per_minute = 60.0 * static_cast<double>(r.finished) / (last - first);
    if (r.tasks_per_minute > 0)
      r.eta_minutes = static_cast<double>(r.planned - std::min(r.planned, r.finished)) / r.tasks_per_minute;
  }
  AddBreakdown(run_dir, plan, shards, &r);
  return r;
}

std::string FormatStatus(const StatusReport& r) {
  std::string out = fmt::format("tasks      {} planned, {} started, {} finished ({:.1f}%), {} shard(s)\n", r.planned,
                                r.started, r.finished, r.planned ? 100.0 * r.finished / r.planned : 0.0, r.shards);
  out += fmt::format("result     {}\n", r.result);
  auto line = [&](const char* name, const std::map<std::string, std::size_t>& m) {
    if (m.empty()) return;
    out += fmt::format("{:<11}", name);
    bool firstk = true;
    for (const auto& [k, n] : m) {
      out += fmt::format("{}{} {}", firstk ? "" : ", ", n, k);
      firstk = false;
    }
    out += "\n";
  };
  line("stages", r.by_stage);
  line("verified", r.verified);
  out += fmt::format("acceptance {:.1f}% of verified tasks\n", 100.0 * r.acceptance_rate);
  line("skipped", r.skipped);
  line("rollouts", r.rollout_exits);
  if (r.autosubmitted > 0)
    out += fmt::format("autosubmit {} rollout(s) submitted their diff after a limit\n", r.autosubmitted);
  out += fmt::format(
      "failures   {} infrastructure, {} model\n",
      [&] {
        std::size_t n = 0;
        for (auto& [k, v] : r.infra_failures) n += v;
        return n;
      }(),
      [&] {
        std::size_t n = 0;
        for (auto& [k, v] : r.model_failures) n += v;
        return n;
      }());
  line("  infra", r.infra_failures);
  line("  model", r.model_failures);
  out += fmt::format("tokens     {} in ({} cached), {} out, {} model calls\n", r.prompt_tokens, r.cached_tokens,
                     r.completion_tokens, r.model_calls);
  out += FormatTokenAccounting(r.tokens);
  if (r.tasks_per_minute > 0) {
    out += fmt::format("throughput {:.1f} tasks/min", r.tasks_per_minute);
    if (r.eta_minutes >= 0 && r.finished < r.planned) out += ", " + FormatEta(r.eta_minutes);
    out += "\n";
  }
  out += FormatBreakdown(r.breakdown);
  if (r.budget.any()) out += "budget     " + FormatBudgetUse(r.budget_used, r.budget) + " used (run-wide)\n";
  if (r.torn_tails)
    out += fmt::format("note       {} journal(s) end in a torn line (a crash); it is ignored\n", r.torn_tails);
  return out;
}

namespace {

void AddBreakdownJson(const StatusBreakdown& b, nlohmann::ordered_json& j) {
  auto acceptance = [](const std::map<std::string, Acceptance>& m) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [k, a] : m) out[k] = {{"verified", a.verified}, {"accepted", a.accepted}};
    return out;
  };
  j["acceptance_by_category"] = acceptance(b.by_category);
  j["acceptance_by_repo"] = acceptance(b.by_repo);
  j["accepted"] = b.accepted;
  j["cost_usd"] = b.cost_usd;
  j["tokens_per_accepted"] = b.tokens_per_accepted;
  nlohmann::ordered_json shards = nlohmann::ordered_json::array();
  for (const ShardProgress& s : b.shards) {
    shards.push_back({{"shard", s.index},
                      {"shards", s.count},
                      {"planned", s.planned},
                      {"done", s.done},
                      {"has_journal", s.has_journal},
                      {"complete", s.complete()}});
  }
  j["shard_progress"] = shards;
}

}  // namespace

std::string StatusJson(const StatusReport& r) {
  nlohmann::ordered_json j = {{"planned", r.planned},
                              {"started", r.started},
                              {"finished", r.finished},
                              {"result", r.result},
                              {"shards", r.shards},
                              {"by_stage", r.by_stage},
                              {"verified", r.verified},
                              {"acceptance_rate", r.acceptance_rate},
                              {"skipped", r.skipped},
                              {"rollout_exits", r.rollout_exits},
                              {"autosubmitted", r.autosubmitted},
                              {"infra_failures", r.infra_failures},
                              {"model_failures", r.model_failures},
                              {"prompt_tokens", r.prompt_tokens},
                              {"completion_tokens", r.completion_tokens},
                              {"cached_prompt_tokens", r.cached_tokens},
                              {"model_calls", r.model_calls},
                              {"tasks_per_minute", r.tasks_per_minute},
                              {"eta_minutes", r.eta_minutes},
                              {"torn_journals", r.torn_tails}};
  AddBreakdownJson(r.breakdown, j);
  AddTokenAccountingJson(r.tokens, j);
  j["budget"] = {{"max_tasks", r.budget.max_tasks},       {"max_tokens", r.budget.max_tokens},
                 {"max_cost_usd", r.budget.max_cost_usd}, {"tasks_used", r.budget_used.tasks},
                 {"tokens_used", r.budget_used.tokens},   {"cost_usd_used", r.budget_used.cost_usd}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

// nullopt when the task has no such rollout; a trajectory its record names
// that cannot be read (missing, not a regular file, too large) is damage: an
// error naming the file. One that does not parse is left out, as before.
Result<std::optional<agent::Trajectory>> LoadRollout(const std::string& shard_dir, const journal::TaskProgress& p,
                                                     const char* role) {
  auto it = p.refs.find(role);
  if (it == p.refs.end()) return std::optional<agent::Trajectory>();
  auto text = journal::ReadResultFile(shard_dir, it->second);
  if (!text.ok()) return text.status().WithContext("trajectory of task " + p.task_id);
  auto traj = agent::TrajectoryFromJson(*text);
  if (!traj.ok()) return std::optional<agent::Trajectory>();
  return std::optional<agent::Trajectory>(std::move(*traj));
}

// Scores and threshold recorded at verification; nullopt scores when not
// recorded or impossible (matched above a line count).
void ReadVerification(const journal::VerificationResult* v, exporter::RecordedTask* out) {
  if (v == nullptr || !v->scores) return;
  if (v->threshold) out->recorded_threshold = *v->threshold;
  // Records written before verify rules existed were scored structurally.
  std::optional<verify::VerifyRule> rule =
      v->scores->rule.empty() ? verify::VerifyRule::kStructural : verify::VerifyRuleFromName(v->scores->rule);
  if (!rule) return;
  auto scores = verify::ScoresFromCounts(*rule, v->scores->p1_lines, v->scores->p2_lines, v->scores->matched,
                                         v->scores->p2_blank);
  if (scores.ok()) out->scores = *scores;
}

}  // namespace

Result<ExportReport> ExportRun(const ExportRequest& req) {
  ExportReport report;
  SG_ASSIGN_OR_RETURN(auto plan, ReadPlan(req.run_dir));
  std::map<std::string, const callgraph::PlannedTask*> by_id;
  for (const auto& t : plan) by_id[t.task_id] = &t;
  SG_ASSIGN_OR_RETURN(auto shards, journal::LoadRunJournals(req.run_dir));
  SG_ASSIGN_OR_RETURN(auto templates, exporter::ExportTemplates::Load(req.prompts_dir + "/export"));
  if (req.options.format == exporter::Format::kSera) {
    SG_RETURN_IF_ERROR(templates.LoadSeraFraming(
        req.sera_tools_file.empty() ? req.prompts_dir + "/" + exporter::kDefaultSeraFraming : req.sera_tools_file));
  }
  std::vector<config::CategoryPrompt> categories;
  if (auto c = config::LoadCategoryPrompts(req.prompts_dir + "/categories.yaml"); c.ok()) categories = *c;

  std::string out_dir = req.out_dir.empty() ? journal::DataDir(req.run_dir) : req.out_dir;
  SG_RETURN_IF_ERROR(MakeDirs(out_dir));
  std::string fmt_name(exporter::FormatName(req.options.format));
  report.t1_path = out_dir + "/" + journal::ExportDataName("t1", fmt_name);
  report.t2_path = out_dir + "/" + journal::ExportDataName("t2", fmt_name);
  std::string t1_text, t2_text;
  exporter::ExportSelector selector(req.rules);

  auto write = [&](const agent::Trajectory& traj, exporter::RecordMetadata& md, std::string* text, std::size_t* n) {
    md.scripted_teacher = exporter::FromScriptedTeacher(traj);
    report.scripted_teacher = report.scripted_teacher || md.scripted_teacher;
    auto rec = exporter::BuildRecord(traj, md, req.options, templates);
    if (!rec.ok()) {
      report.invalid++;
      return;
    }
    *text += *rec + "\n";
    ++*n;
  };

  for (const auto& shard : shards) {
    journal::ResumeState state = journal::ResumeState::Fold(shard.journal.records);
    for (const auto& [id, p] : state.tasks()) {
      if (!selector.FirstSight(id)) continue;
      auto planned = by_id.find(id);
      if (planned == by_id.end()) {
        selector.Exclude(exporter::kNotInPlan);
        continue;
      }
      const callgraph::PlannedTask& t = *planned->second;
      exporter::RecordMetadata md;
      md.task_id = id;
      md.run_name = req.run_name;
      md.repo = t.repo;
      md.commit = t.commit;
      md.function_id = t.function_id;
      md.file = t.file;
      md.planned_category_index = t.category;
      md.category_index = journal::AttemptCategory(p, t.category);
      if (md.category_index >= 0 && static_cast<std::size_t>(md.category_index) < categories.size())
        md.category = categories[md.category_index].topic;
      md.recipe_hash = shard.journal.effective_config_hash;
      if (auto tc = req.test_commands.find(t.repo); tc != req.test_commands.end()) md.test_command = tc->second;

      SG_ASSIGN_OR_RETURN(std::optional<agent::Trajectory> r1, LoadRollout(shard.shard_dir, p, journal::kRefRollout1));
      SG_ASSIGN_OR_RETURN(std::optional<agent::Trajectory> r2, LoadRollout(shard.shard_dir, p, journal::kRefRollout2));
      exporter::RecordedTask outcome;
      outcome.task_id = id;
      outcome.rollout1 = r1 ? &*r1 : nullptr;
      outcome.rollout2 = r2 ? &*r2 : nullptr;
      outcome.judge_rejected = p.last.stage == Stage::kSkipped && p.last.status.rfind("judge_", 0) == 0;
      outcome.judged_yes = journal::Rollout1JudgedYes(p);
      outcome.verified = p.last.stage == Stage::kVerified;
      outcome.test_command = md.test_command;
      if (outcome.verified) ReadVerification(p.last.verification(), &outcome);
      exporter::Selection sel = selector.Select(outcome);
      if (sel.t1) {
        md.rollout = 1;
        md.seed = p.rollout1.seed;
        md.scores.reset();
        write(*r1, md, &t1_text, &report.t1_written);
      }
      if (sel.t2) {
        md.rollout = 2;
        md.seed = p.rollout2.seed;
        md.scores = sel.t2_scores;
        write(*r2, md, &t2_text, &report.t2_written);
      }
    }
  }
  report.excluded = selector.excluded();
  if (auto d = report.excluded.find(exporter::kDuplicateTaskId); d != report.excluded.end()) {
    report.duplicates = d->second;
    report.excluded.erase(d);
  }
  SG_RETURN_IF_ERROR(WriteFileAtomic(report.t1_path, t1_text));
  SG_RETURN_IF_ERROR(WriteFileAtomic(report.t2_path, t2_text));
  nlohmann::ordered_json summary = {{"format", fmt_name},
                                    {"run", req.run_name},
                                    {"t1", {{"path", report.t1_path}, {"records", report.t1_written}}},
                                    {"t2", {{"path", report.t2_path}, {"records", report.t2_written}}},
                                    {"excluded", report.excluded},
                                    {"invalid", report.invalid},
                                    {"duplicate_task_ids", report.duplicates},
                                    {"scripted_teacher", report.scripted_teacher}};
  SG_RETURN_IF_ERROR(WriteFileAtomic(out_dir + "/" + journal::ExportSummaryName(fmt_name),
                                     summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
  return report;
}

namespace {

// Each repository's environment.test_command: its own environment section
// when it sets any key, else the run-wide one (as the run used them).
std::map<std::string, std::string> TestCommandsOf(const config::Config& cfg) {
  std::map<std::string, std::string> out;
  for (const config::RepoConfig& repo : cfg.repos) {
    out[repo.name] =
        (repo.environment == config::EnvironmentConfig{} ? cfg.environment : repo.environment).test_command;
  }
  return out;
}

}  // namespace

Result<std::vector<ExportRequest>> ExportRequestsFor(const ExportOverrides& o) {
  std::map<std::string, std::string> test_commands;
  config::OutputConfig output;
  std::string verify_rule = config::VerifyConfig{}.rule;
  std::string run_name;
  bool judge_enabled = config::JudgeConfig{}.enabled;
  std::string saved = journal::ConfigYamlPath(o.run_dir);
  auto loaded = LoadSavedConfig(o.run_dir);
  if (!loaded.ok() && loaded.status().code() != StatusCode::kNotFound) {
    return InvalidArgumentError("the run's saved configuration " + saved +
                                " does not load: " + loaded.status().message());
  }
  if (loaded.ok()) {
    output = loaded->config.output;
    verify_rule = loaded->config.verify.rule;
    judge_enabled = loaded->config.judge.enabled;
    run_name = loaded->config.run.name;
    test_commands = TestCommandsOf(loaded->config);
  }
  std::string think = o.think.value_or(output.think);
  std::string rollouts = o.rollouts.value_or(output.rollouts);
  std::string tool_call_ids = o.tool_call_ids.value_or(output.tool_call_ids);
  if (tool_call_ids != "keep" && tool_call_ids != "short9") {
    return InvalidArgumentError("tool_call_ids '" + tool_call_ids + "' is not keep or short9");
  }
  auto think_mode = exporter::ParseThinkMode(think);
  if (!think_mode) return InvalidArgumentError("think mode '" + think + "' is not keep, drop or wrap");
  if (rollouts != "t1" && rollouts != "t2" && rollouts != "both") {
    return InvalidArgumentError("rollouts '" + rollouts + "' is not t1, t2 or both");
  }
  std::optional<verify::VerifyRule> line_rule = verify::VerifyRuleFromName(verify_rule);
  if (!line_rule) return InvalidArgumentError("verify.rule '" + verify_rule + "' is not sera or structural");
  std::vector<ExportRequest> out;
  for (const std::string& name : o.formats.empty() ? output.formats : o.formats) {
    auto format = exporter::ParseFormat(name);
    if (!format) return InvalidArgumentError("format '" + name + "' is not hf, openai, hermes, xml or sera");
    ExportRequest req;
    req.run_dir = o.run_dir;
    req.out_dir = o.out_dir;
    req.prompts_dir = o.prompts_dir;
    req.run_name = run_name;
    req.sera_tools_file = output.sera_tools_file;
    req.options.format = *format;
    req.options.think = *think_mode;
    req.options.train_keys = o.train_keys;
    req.options.short_tool_call_ids = tool_call_ids == "short9";
    req.options.include_tools = output.include_tools && !o.no_tools;
    req.rules.t1 = rollouts != "t2";
    req.rules.t2 = rollouts != "t1";
    req.rules.judge_enabled = judge_enabled;
    req.rules.only_submitted = output.only_submitted && !o.include_unsubmitted;
    req.rules.threshold = o.threshold;
    req.rules.max_record_tokens = static_cast<std::size_t>(output.max_record_tokens);
    req.rules.drop_malformed_think = output.drop_malformed_think;
    req.rules.max_patch_lines = static_cast<std::size_t>(output.max_patch_lines);
    req.rules.line_rule = *line_rule;
    req.rules.max_avg_tool_output_tokens = static_cast<std::size_t>(output.max_avg_tool_output_tokens);
    req.rules.require_tests_passed = o.require_tests_passed;
    req.test_commands = test_commands;
    out.push_back(std::move(req));
  }
  return out;
}

std::string FormatExport(const ExportReport& r) {
  std::string out =
      fmt::format("T1: {} records -> {}\nT2: {} records -> {}\n", r.t1_written, r.t1_path, r.t2_written, r.t2_path);
  for (const auto& [why, n] : r.excluded) out += fmt::format("  excluded {}: {}\n", why, n);
  if (r.invalid) out += fmt::format("  {} record(s) failed validation and were not written\n", r.invalid);
  if (r.duplicates) out += fmt::format("  {} duplicate task id(s) across shards dropped\n", r.duplicates);
  if (r.scripted_teacher) {
    out +=
        "NOTE: these trajectories come from seragen's built-in scripted teacher, a stand-in for a model.\n"
        "      They demonstrate the format; they are not real training data.\n";
  }
  return out;
}

}  // namespace seragen::pipeline
