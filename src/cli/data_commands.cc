#include "cli/data_commands.h"

#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "cli/exit_codes.h"
#include "seragen/base/terminal_text.h"
#include "seragen/config/loader.h"
#include "seragen/config/shipped_data.h"
#include "seragen/eval/eval_tasks.h"
#include "seragen/export/record.h"
#include "seragen/publish/export_dataset.h"
#include "seragen/publish/export_run.h"
#include "seragen/publish/export_secrets_status.h"
#include "seragen/runview/status_report.h"

namespace seragen::cli {
namespace {

#ifndef SERAGEN_VERSION
#define SERAGEN_VERSION "0.0.0"
#endif

// The export requests of `o`, each with its prompts directory; an error
// message on stderr (and nullopt) when the run's settings do not load.
std::optional<std::vector<publish::ExportRequest>> RequestsFor(const publish::ExportOverrides& o) {
  auto requests = publish::ExportRequestsFor(o);
  if (!requests.ok()) {
    std::cerr << "seragen export: " << requests.status().message() << "\n";
    return std::nullopt;
  }
  for (publish::ExportRequest& req : *requests) {
    req.prompts_dir = config::ConfiguredOrShipped(req.prompts_dir, config::Shipped::kPrompts);
  }
  return std::move(*requests);
}

// The exit code of a failed export, its message on stderr.
int ExportFailed(const Status& s) {
  std::cerr << "seragen export: " << s.message() << "\n";
  return s.code() == StatusCode::kNotFound ? kExitUsage : kExitRuntimeFailure;
}

int RunExport(const publish::ExportOverrides& o) {
  auto requests = RequestsFor(o);
  if (!requests) return kExitUsage;
  auto reports = publish::ExportRuns(*requests);  // one reading of the run for every format
  if (!reports.ok()) return ExportFailed(reports.status());
  for (std::size_t i = 0; i < requests->size(); ++i) {
    std::cout << "[" << exporter::FormatName((*requests)[i].options.format) << "]\n"
              << publish::FormatExport((*reports)[i]);
  }
  return kExitOk;
}

// `export --dataset DIR`: every requested format plus sharegpt into DIR/data,
// the dataset card and LLaMA-Factory's dataset_info.json.
int RunDataset(const publish::ExportOverrides& o, const std::string& dir) {
  auto requests = RequestsFor(o);
  if (!requests) return kExitUsage;
  auto report = publish::ExportDataset(std::move(*requests), dir, SERAGEN_VERSION);
  if (!report.ok()) return ExportFailed(report.status());
  for (const auto& [format, r] : report->exports) std::cout << "[" << format << "]\n" << publish::FormatExport(r);
  std::cout << "dataset card: " << report->card_path << "\nLLaMA-Factory: " << report->info_path << "\n";
  return kExitOk;
}

// `export --eval DIR`: the run's held-out tasks as DIR/eval.jsonl (SWE-bench
// layout). A run without a split is a usage error, not an empty benchmark.
int RunEvalTasks(const std::string& run_dir, const std::string& dir) {
  auto set = eval::EvalTasksOf(run_dir);
  if (!set.ok()) return ExportFailed(set.status());
  if (set->heldout == 0) {
    std::cerr << "seragen export: the plan of " << run_dir
              << " holds no task out for evaluation (set eval.holdout before the run is planned; docs/EVAL.md)\n";
    return kExitUsage;
  }
  auto path = eval::WriteEvalTasks(*set, dir);
  if (!path.ok()) return ExportFailed(path.status());
  std::cout << eval::FormatEvalTaskSet(*set, *path);
  return kExitOk;
}

// Options left unset take the run's output.* values (RUN_DIR/config.yaml).
void AddExportOptions(CLI::App* cmd, publish::ExportOverrides* o) {
  cmd->add_option("run_dir", o->run_dir, "Run directory")->required();
  cmd->add_option("--out", o->out_dir, "Output directory (default RUN_DIR/data)");
  cmd->add_option(
         "--think", o->think,
         "Reasoning in assistant turns: keep (separate field), drop, wrap (<think> in content); default output.think")
      ->check(CLI::IsMember({"keep", "drop", "wrap"}));
  cmd->add_option("--rollouts", o->rollouts, "t1, t2 or both; default output.rollouts")
      ->check(CLI::IsMember({"t1", "t2", "both"}));
  cmd->add_option("--tool-call-ids", o->tool_call_ids,
                  "keep or short9 (9 alphanumeric characters); default output.tool_call_ids")
      ->check(CLI::IsMember({"keep", "short9"}));
  cmd->add_flag("--train-keys", o->train_keys, "Add \"train\": true to assistant messages and false to the others");
  cmd->add_flag("--no-tools", o->no_tools, "Leave the tool schemas out of the records (output.include_tools: false)");
  cmd->add_flag("--include-unsubmitted", o->include_unsubmitted,
                "Also export rollouts that did not end with a submit (output.only_submitted: false)");
  cmd->add_flag("--require-tests-passed", o->require_tests_passed,
                "Only rollouts whose last test run was the repository's environment.test_command and passed "
                "(metadata.tests; a model's other commands are not believed)");
  cmd->add_option("--max-record-tokens", o->max_record_tokens,
                  "Leave out rollouts longer than N tokens (UTF-8 bytes / 4); set it to the trainer's sequence length "
                  "(0 = off); default output.max_record_tokens")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  cmd->add_flag("--require-env-ok", o->require_env_ok,
                "Leave out rollouts where a command could not import the repository's own code (env_broken; "
                "counted as t1_env_broken / t2_env_broken)");
  cmd->add_option("--threshold", o->threshold, "Soft-verification threshold for T2 (default: the one used by the run)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--prompts", o->prompts_dir, "Prompt directory (default: the prompts/ shipped with seragen)");
  cmd->add_option("--secrets", o->secrets_action,
                  "A row holding a secret: redact, drop or report (docs/SECRETS.md); default export.secrets.action")
      ->check(CLI::IsMember({"redact", "drop", "report"}));
  cmd->add_option("--secrets-report", o->secrets_report,
                  "Write one JSON line per secret found (task, rollout, message, rule, hash, masked context) to FILE");
}

}  // namespace

void AddDataCommands(CLI::App& app, std::function<int()>* action) {
  {
    auto run_dir = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    CLI::App* cmd =
        app.add_subcommand("status", "Progress, acceptance, tokens and failures (infrastructure vs model) of a run");
    cmd->add_option("run_dir", *run_dir, "Run directory")->required();
    cmd->add_flag("--json", *json, "One JSON object");
    cmd->callback([run_dir, json, action] {
      *action = [run_dir, json] {
        auto r = runview::ReadStatus(*run_dir);
        if (!r.ok()) {
          std::cerr << "seragen status: " << r.status().message() << "\n";
          return kExitUsage;
        }
        r->export_secrets = publish::ReadExportSecrets(*run_dir);
        // Names from the run directory and the endpoint: escaped (as JSON escapes inside --json).
        const std::string text = *json ? runview::StatusJson(*r) : runview::FormatStatus(*r);
        std::cout << TerminalSafe(text, text.size(), *json ? TerminalField::kJson : TerminalField::kBlock);
        return kExitOk;
      };
    });
  }
  {
    auto o = std::make_shared<publish::ExportOverrides>();
    auto format = std::make_shared<std::string>();
    CLI::App* cmd =
        app.add_subcommand("export", "Training JSONL from a run's trajectories (rerun with other options at will)");
    cmd->add_option("--format", *format,
                    "hf, openai, hermes, xml, sera or sharegpt (default: output.formats of the run, hf unless set)")
        ->check(CLI::IsMember(exporter::FormatNames()));
    auto dataset = std::make_shared<std::string>();
    AddExportOptions(cmd, o.get());
    cmd->add_option("--dataset", *dataset,
                    "Write a directory a dataset hub can host: DIR/data (the formats and sharegpt), README.md "
                    "(dataset card) and dataset_info.json (LLaMA-Factory)")
        ->excludes(cmd->get_option("--out"));
    auto eval_dir = std::make_shared<std::string>();
    cmd->add_option("--eval", *eval_dir,
                    "Write the run's held-out tasks (eval.holdout) as DIR/eval.jsonl in SWE-bench's instance layout "
                    "instead of training data (docs/EVAL.md)")
        ->excludes(cmd->get_option("--out"))
        ->excludes(cmd->get_option("--dataset"));
    cmd->callback([o, format, dataset, eval_dir, action] {
      if (!format->empty()) o->formats = {*format};
      *action = [o, dataset, eval_dir] {
        if (!eval_dir->empty()) return RunEvalTasks(o->run_dir, *eval_dir);
        return dataset->empty() ? RunExport(*o) : RunDataset(*o, *dataset);
      };
    });
  }
  {
    auto o = std::make_shared<publish::ExportOverrides>();
    CLI::App* cmd = app.add_subcommand(
        "merge",
        "Combine every shard of a run into one data set per format, dropping duplicate task ids and identical patches");
    cmd->add_option("--formats", o->formats, "Formats to write (default: output.formats of the run)")
        ->check(CLI::IsMember(exporter::FormatNames()));
    AddExportOptions(cmd, o.get());
    cmd->callback([o, action] { *action = [o] { return RunExport(*o); }; });
  }
}

}  // namespace seragen::cli
