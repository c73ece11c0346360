#include "seragen/publish/export_run.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <unordered_map>

#include "publish/trajectory_secrets.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/base/atomic_file.h"
#include "seragen/base/file_util.h"
#include "seragen/callgraph/holdout.h"
#include "seragen/config/data_dir.h"
#include "seragen/config/shipped_data.h"
#include "seragen/export/dataset_card.h"
#include "seragen/export/heldout_filter.h"
#include "seragen/journal/outcomes.h"
#include "seragen/journal/result_files.h"
#include "seragen/journal/run_paths.h"
#include "seragen/runview/run_settings.h"
#include "seragen/runview/run_state.h"
#include "seragen/verify/scores.h"

namespace seragen::publish {
namespace {

// nullopt when the task has no such rollout; a trajectory its record names
// that cannot be read (missing, not a regular file, too large) is damage: an
// error naming the file. One that does not parse is left out, as before.
Result<std::optional<agent::Trajectory>> LoadRollout(const std::string& shard_dir, const journal::TaskProgress& p,
                                                     const char* role) {
  std::optional<std::string_view> ref = p.refs.Find(role);
  if (!ref) return std::optional<agent::Trajectory>();
  auto text = journal::ReadResultFile(shard_dir, *ref);
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

// One export: the records of every task, in ForEachTask order, into two texts.
class RunExporter {
 public:
  RunExporter(const ExportRequest& req, const runview::RunState& run, const exporter::ExportTemplates& templates,
              ExportReport* report)
      : req_(req),
        run_(run),
        templates_(templates),
        report_(report),
        selector_(req.rules),
        heldout_(callgraph::HeldOutFiles(run.plan)) {
    for (const auto& t : run.plan) by_id_.emplace(t.task_id, &t);
  }

  Status ExportAll() {
    Status status;
    run_.ForEachTask([&](const runview::ShardState& shard, const journal::TaskProgress& p) {
      if (status.ok()) status = ExportTask(shard, p);
    });
    report_->excluded = selector_.excluded();
    report_->duplicates = run_.duplicate_tasks();
    return status;
  }
  const std::string& t1_text() const { return t1_text_; }
  const std::string& t2_text() const { return t2_text_; }
  // export --secrets-report: a line per hit, written as rows are scanned.
  void StreamSecretsReportTo(AtomicFile* file) { report_file_ = file; }

 private:
  exporter::RecordMetadata MetadataOf(const runview::ShardState& shard, const journal::TaskProgress& p,
                                      const callgraph::PlannedTask& t) const {
    exporter::RecordMetadata md;
    md.task_id = p.task_id;
    md.run_name = req_.run_name;
    md.repo = t.repo;
    md.commit = t.commit;
    md.function_id = t.function_id;
    md.file = t.file;
    md.planned_category_index = t.category;
    md.category_index = journal::AttemptCategory(p, t.category);
    if (md.category_index >= 0 && static_cast<std::size_t>(md.category_index) < run_.settings.categories.size())
      md.category = run_.settings.categories[md.category_index];
    md.recipe_hash = shard.journal.effective_config_hash;
    if (auto tc = req_.test_commands.find(t.repo); tc != req_.test_commands.end()) md.test_command = tc->second;
    return md;
  }

  Status ExportTask(const runview::ShardState& shard, const journal::TaskProgress& p) {
    auto planned = by_id_.find(p.task_id);
    if (planned == by_id_.end()) {
      selector_.Exclude(exporter::kNotInPlan);
      return Status::Ok();
    }
    if (planned->second->heldout) {  // evaluation data: never a training row
      selector_.Exclude(exporter::kHeldOutTask);
      return Status::Ok();
    }
    exporter::RecordMetadata md = MetadataOf(shard, p, *planned->second);
    SG_ASSIGN_OR_RETURN(std::optional<agent::Trajectory> r1, LoadRollout(shard.shard_dir, p, journal::kRefRollout1));
    SG_ASSIGN_OR_RETURN(std::optional<agent::Trajectory> r2, LoadRollout(shard.shard_dir, p, journal::kRefRollout2));
    exporter::RecordedTask outcome;
    outcome.task_id = p.task_id;
    outcome.rollout1 = r1 ? &*r1 : nullptr;
    outcome.rollout2 = r2 ? &*r2 : nullptr;
    outcome.judge_rejected = journal::IsJudgeSkip(p.last);
    outcome.judged_yes = journal::Rollout1JudgedYes(p);
    outcome.verified = p.last.stage == journal::Stage::kVerified;
    outcome.test_command = md.test_command;
    outcome.rollout1_env_broken = p.rollout1.env_broken;
    outcome.rollout2_env_broken = p.rollout2.env_broken;
    if (outcome.verified) ReadVerification(p.last.verification(), &outcome);
    exporter::Selection sel = selector_.Select(outcome);
    sel.t1 = sel.t1 && !TouchesHeldOut(md.repo, *r1, exporter::kT1TouchesHeldOut);
    sel.t2 = sel.t2 && !TouchesHeldOut(md.repo, *r2, exporter::kT2TouchesHeldOut);
    if (sel.t1) {
      md.rollout = 1;
      md.seed = p.rollout1.seed;
      md.scores.reset();
      Write(std::move(*r1), md, &t1_text_, &report_->t1_written);
    }
    if (sel.t2) {
      md.rollout = 2;
      md.seed = p.rollout2.seed;
      md.scores = sel.t2_scores;
      Write(std::move(*r2), md, &t2_text_, &report_->t2_written);
    }
    return Status::Ok();
  }

  // A row whose patch changes a held-out file is left out (counted as `reason`).
  bool TouchesHeldOut(const std::string& repo, const agent::Trajectory& traj, const char* reason) {
    if (heldout_.empty() || !heldout_.Touches(repo, traj.patch)) return false;
    selector_.Exclude(reason);
    return true;
  }

  // Record metadata that holds text from the repository, the endpoint or
  // the model: scanned with the row, redacted in place.
  static std::vector<MetadataText> MetadataTexts(exporter::RecordMetadata& md, agent::Trajectory& traj) {
    std::vector<MetadataText> out = {
        {"run", &md.run_name}, {"repo", &md.repo},         {"start_function", &md.function_id},
        {"file", &md.file},    {"category", &md.category}, {"model", &traj.model}};
    if (md.model_tests && *md.model_tests) out.push_back({"tests.command", &(*md.model_tests)->command});
    return out;
  }

  // The one place rows meet the secret scanner: false when the row must not
  // ship (a hit under drop, or arguments a redaction broke).
  bool PassesSecretScan(agent::Trajectory* traj, exporter::RecordMetadata& md) {
    if (!req_.secret_scanner) return true;
    const bool redact = req_.secret_action == secrets::SecretAction::kRedact;
    TrajectoryHitSink sink;
    std::string task_id;
    if (report_file_) {
      task_id = RedactedAlone(*req_.secret_scanner, md.task_id);
      sink = [&](const secrets::SecretHit& hit, const ScannedField& field) {
        (void)report_file_->Append(SecretsReportLine(hit, field, task_id, md.rollout) + "\n");  // errors: Commit's
      };
    }
    std::vector<MetadataText> texts = MetadataTexts(md, *traj);
    TrajectoryScan scan = ScanTrajectory(*req_.secret_scanner, redact, traj, texts, sink);
    report_->secrets.Add(scan.scan, req_.secret_action);
    if (scan.scan.clean()) return true;
    if (req_.secret_action == secrets::SecretAction::kDrop || !scan.arguments_valid) {
      selector_.Exclude(md.rollout == 1 ? kT1Secret : kT2Secret);
      return false;
    }
    return true;
  }

  // `text` with every secret the scanner finds in it alone replaced.
  static std::string RedactedAlone(const secrets::SecretScanner& scanner, const std::string& text) {
    std::string_view field = text;
    secrets::RowScan scan = scanner.ScanRow(std::span<const std::string_view>(&field, 1));
    return scan.clean() ? text : scan.redacted.front();
  }

  void Write(agent::Trajectory traj, exporter::RecordMetadata md, std::string* text, std::size_t* n) {
    // What records take from the raw turns is taken now, so that the scan
    // sees it; the turns themselves leave in no record.
    md.model_tests = exporter::LastTestRun(traj, md.test_command);
    traj.turns.clear();
    if (!PassesSecretScan(&traj, md)) return;
    if (req_.options.format == exporter::Format::kSharegpt &&
        exporter::SharegptMarkupConflict(traj, req_.options.think)) {
      selector_.Exclude(md.rollout == 1 ? exporter::kT1SharegptMarkup : exporter::kT2SharegptMarkup);
      return;
    }
    md.scripted_teacher = exporter::FromScriptedTeacher(traj);
    report_->scripted_teacher = report_->scripted_teacher || md.scripted_teacher;
    auto rec = exporter::BuildRecord(traj, md, req_.options, templates_);
    if (!rec.ok()) {
      report_->invalid++;
      return;
    }
    *text += *rec + "\n";
    ++*n;
    report_->models.insert(traj.model);
  }

  const ExportRequest& req_;
  const runview::RunState& run_;
  const exporter::ExportTemplates& templates_;
  ExportReport* report_;
  exporter::ExportSelector selector_;
  exporter::HeldOutFilter heldout_;
  std::unordered_map<std::string_view, const callgraph::PlannedTask*> by_id_;
  std::string t1_text_, t2_text_;
  AtomicFile* report_file_ = nullptr;
};

Status WriteSummary(const std::string& path, const std::string& fmt_name, const std::string& run_name,
                    const ExportReport& report) {
  nlohmann::ordered_json summary = {{"format", fmt_name},
                                    {"run", run_name},
                                    {"t1", {{"path", report.t1_path}, {"records", report.t1_written}}},
                                    {"t2", {{"path", report.t2_path}, {"records", report.t2_written}}},
                                    {"excluded", report.excluded},
                                    {"invalid", report.invalid},
                                    {"duplicate_task_ids", report.duplicates},
                                    {"scripted_teacher", report.scripted_teacher}};
  if (report.secrets_scanned) summary["secrets"] = nlohmann::json::parse(secrets::EncodeSecretSummary(report.secrets));
  return WriteFileAtomic(path, summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace

Result<ExportReport> ExportRun(const ExportRequest& req) {
  SG_ASSIGN_OR_RETURN(std::vector<ExportReport> reports, ExportRuns({req}));
  return std::move(reports.front());
}

Result<std::vector<ExportReport>> ExportRuns(const std::vector<ExportRequest>& requests) {
  if (requests.empty()) return InvalidArgumentError("no export format requested");
  runview::FoldOptions fold;
  fold.prompts_dir = requests.front().prompts_dir;
  SG_ASSIGN_OR_RETURN(runview::RunState run, runview::FoldRun(requests.front().run_dir, fold));
  std::vector<ExportReport> reports;
  for (const ExportRequest& req : requests) {
    SG_ASSIGN_OR_RETURN(ExportReport r, ExportFolded(req, run));
    reports.push_back(std::move(r));
  }
  return reports;
}

Result<ExportReport> ExportFolded(const ExportRequest& req, const runview::RunState& run) {
  SG_ASSIGN_OR_RETURN(auto templates, exporter::ExportTemplates::Load(req.prompts_dir + "/export"));
  if (req.options.format == exporter::Format::kSera) {
    SG_RETURN_IF_ERROR(templates.LoadSeraFraming(
        req.sera_tools_file.empty() ? req.prompts_dir + "/" + exporter::kDefaultSeraFraming : req.sera_tools_file));
  }
  std::string out_dir = req.out_dir.empty() ? journal::DataDir(req.run_dir) : req.out_dir;
  SG_RETURN_IF_ERROR(MakeDirs(out_dir));
  std::string fmt_name(exporter::FormatName(req.options.format));
  ExportReport report;
  report.t1_path = out_dir + "/" + journal::ExportDataName("t1", fmt_name);
  report.t2_path = out_dir + "/" + journal::ExportDataName("t2", fmt_name);
  report.secrets_scanned = req.secret_scanner.has_value();
  RunExporter exporter(req, run, templates, &report);
  std::optional<AtomicFile> secrets_report;
  if (!req.secrets_report.empty()) {
    SG_ASSIGN_OR_RETURN(secrets_report, AtomicFile::Open(req.secrets_report));
    exporter.StreamSecretsReportTo(&*secrets_report);
  }
  SG_RETURN_IF_ERROR(exporter.ExportAll());
  if (secrets_report) SG_RETURN_IF_ERROR(secrets_report->Commit());
  SG_RETURN_IF_ERROR(WriteFileAtomic(report.t1_path, exporter.t1_text()));
  SG_RETURN_IF_ERROR(WriteFileAtomic(report.t2_path, exporter.t2_text()));
  SG_RETURN_IF_ERROR(
      WriteSummary(out_dir + "/" + journal::ExportSummaryName(fmt_name), fmt_name, req.run_name, report));
  if (req.options.format == exporter::Format::kSharegpt) {  // LLaMA-Factory reads its entries from here
    std::vector<exporter::DatasetFile> files = {
        {"t1", req.options.format, journal::ExportDataName("t1", fmt_name), report.t1_written},
        {"t2", req.options.format, journal::ExportDataName("t2", fmt_name), report.t2_written}};
    SG_RETURN_IF_ERROR(WriteFileAtomic(out_dir + "/" + std::string(journal::kDatasetInfoName),
                                       exporter::LlamaFactoryDatasetInfo(files)));
  }
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

// The scanner, action and report path of export.secrets.* and the flags (the
// shipped configs/secret_rules.yaml when rules_file is empty).
Status ApplySecretSettings(const config::ExportSecretsConfig& cfg, const ExportOverrides& o, ExportRequest* req) {
  auto action = secrets::ParseSecretAction(o.secrets_action.value_or(cfg.action));
  if (!action.ok()) return InvalidArgumentError("export.secrets.action: " + action.status().message());
  std::string rules = config::ConfiguredOrShipped(cfg.rules_file, config::Shipped::kSecretRules);
  auto scanner = secrets::LoadSecretScanner(rules, cfg.allow);
  if (!scanner.ok()) return InvalidArgumentError(scanner.status().message());
  req->secret_scanner = std::move(*scanner);
  req->secret_action = *action;
  req->secrets_report = o.secrets_report;
  return Status::Ok();
}

}  // namespace

Result<std::vector<ExportRequest>> ExportRequestsFor(const ExportOverrides& o) {
  std::map<std::string, std::string> test_commands;
  config::OutputConfig output;
  config::ExportSecretsConfig secret_cfg;
  std::string verify_rule = config::VerifyConfig{}.rule;
  std::string run_name;
  bool judge_enabled = config::JudgeConfig{}.enabled;
  std::string saved = journal::ConfigYamlPath(o.run_dir);
  auto loaded = runview::LoadSavedConfig(o.run_dir);
  if (!loaded.ok() && loaded.status().code() != StatusCode::kNotFound) {
    return InvalidArgumentError("the run's saved configuration " + saved +
                                " does not load: " + loaded.status().message());
  }
  if (loaded.ok()) {
    output = loaded->config.output;
    secret_cfg = loaded->config.export_.secrets;
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
  ExportRequest secret_settings;
  SG_RETURN_IF_ERROR(ApplySecretSettings(secret_cfg, o, &secret_settings));
  std::vector<ExportRequest> out;
  for (const std::string& name : o.formats.empty() ? output.formats : o.formats) {
    auto format = exporter::ParseFormat(name);
    if (!format) return InvalidArgumentError("format '" + name + "' is not hf, openai, hermes, xml, sera or sharegpt");
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
    req.rules.max_record_tokens = static_cast<std::size_t>(o.max_record_tokens.value_or(output.max_record_tokens));
    req.rules.drop_malformed_think = output.drop_malformed_think;
    req.rules.max_patch_lines = static_cast<std::size_t>(output.max_patch_lines);
    req.rules.line_rule = *line_rule;
    req.rules.max_avg_tool_output_tokens = static_cast<std::size_t>(output.max_avg_tool_output_tokens);
    req.rules.require_tests_passed = o.require_tests_passed;
    req.rules.require_env_ok = o.require_env_ok;
    req.test_commands = test_commands;
    req.secret_scanner = secret_settings.secret_scanner;  // shares the compiled rules
    req.secret_action = secret_settings.secret_action;
    req.secrets_report = secret_settings.secrets_report;
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
  if (r.secrets_scanned) out += FormatSecretSummary(r.secrets);
  if (r.scripted_teacher) {
    out +=
        "NOTE: these trajectories come from seragen's built-in scripted teacher, a stand-in for a model.\n"
        "      They demonstrate the format; they are not real training data.\n";
  }
  return out;
}

}  // namespace seragen::publish
