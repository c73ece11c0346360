#include "cli/data_commands.h"

#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "seragen/config/loader.h"
#include "seragen/pipeline/reports.h"

namespace seragen::cli {
namespace {

struct ExportArgs {
  std::string run_dir, out_dir, format = "hf", think = "keep", rollouts = "both", prompts;
  bool train_keys = false, no_tools = false, include_unsubmitted = false;
  double threshold = -1;
};

int RunExport(const ExportArgs& a, const std::vector<std::string>& formats) {
  for (const std::string& f : formats) {
    pipeline::ExportRequest req;
    req.run_dir = a.run_dir;
    req.out_dir = a.out_dir;
    req.options.format = *exporter::ParseFormat(f);
    req.options.think = *exporter::ParseThinkMode(a.think);
    req.options.train_keys = a.train_keys;
    req.options.include_tools = !a.no_tools;
    req.rollouts = a.rollouts;
    req.only_submitted = !a.include_unsubmitted;
    if (a.threshold >= 0) req.threshold = a.threshold;
    req.prompts_dir = a.prompts.empty() ? config::DataDir() + "/prompts" : a.prompts;
    auto report = pipeline::ExportRun(req);
    if (!report.ok()) {
      std::cerr << "seragen export: " << report.status().message() << "\n";
      return report.status().code() == StatusCode::kNotFound ? kExitUsage : kExitRuntimeFailure;
    }
    std::cout << "[" << f << "]\n" << pipeline::FormatExport(*report);
  }
  return kExitOk;
}

void AddExportOptions(CLI::App* cmd, ExportArgs* a) {
  cmd->add_option("--out", a->out_dir, "Output directory (default RUN_DIR/data)");
  cmd->add_option("--think", a->think, "Reasoning in assistant turns: keep (separate field), drop, wrap (<think> in content)")
      ->check(CLI::IsMember({"keep", "drop", "wrap"}))->capture_default_str();
  cmd->add_option("--rollouts", a->rollouts, "t1, t2 or both")->check(CLI::IsMember({"t1", "t2", "both"}))->capture_default_str();
  cmd->add_flag("--train-keys", a->train_keys, "Add \"train\": true to assistant messages and false to the others");
  cmd->add_flag("--no-tools", a->no_tools, "Leave the tool schemas out of the records");
  cmd->add_flag("--include-unsubmitted", a->include_unsubmitted, "Also export rollouts that did not end with a submit");
  cmd->add_option("--threshold", a->threshold, "Soft-verification threshold for T2 (default: the one used by the run)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--prompts", a->prompts, "Prompt directory (default: the prompts/ shipped with seragen)");
}

}  // namespace

void AddDataCommands(CLI::App& app, std::function<int()>* action) {
  {
    auto run_dir = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("status", "Progress, acceptance, tokens and failures (infrastructure vs model) of a run");
    cmd->add_option("run_dir", *run_dir, "Run directory")->required();
    cmd->add_flag("--json", *json, "One JSON object");
    cmd->callback([run_dir, json, action] {
      *action = [run_dir, json] {
        auto r = pipeline::ReadStatus(*run_dir);
        if (!r.ok()) {
          std::cerr << "seragen status: " << r.status().message() << "\n";
          return kExitUsage;
        }
        std::cout << (*json ? pipeline::StatusJson(*r) : pipeline::FormatStatus(*r));
        return kExitOk;
      };
    });
  }
  {
    auto a = std::make_shared<ExportArgs>();
    CLI::App* cmd = app.add_subcommand("export", "Training JSONL from a run's trajectories (rerun with other options at will)");
    cmd->add_option("run_dir", a->run_dir, "Run directory")->required();
    cmd->add_option("--format", a->format, "hf (default), openai, hermes or xml")->check(CLI::IsMember({"hf", "openai", "hermes", "xml"}))->capture_default_str();
    AddExportOptions(cmd, a.get());
    cmd->callback([a, action] { *action = [a] { return RunExport(*a, {a->format}); }; });
  }
  {
    auto a = std::make_shared<ExportArgs>();
    auto formats = std::make_shared<std::vector<std::string>>(std::vector<std::string>{"hf"});
    CLI::App* cmd = app.add_subcommand(
        "merge", "Combine every shard of a run into one data set per format, dropping duplicate task ids and identical patches");
    cmd->add_option("run_dir", a->run_dir, "Run directory")->required();
    cmd->add_option("--formats", *formats, "Formats to write")->check(CLI::IsMember({"hf", "openai", "hermes", "xml"}))->capture_default_str();
    AddExportOptions(cmd, a.get());
    cmd->callback([a, formats, action] { *action = [a, formats] { return RunExport(*a, *formats); }; });
  }
}

}  // namespace seragen::cli
