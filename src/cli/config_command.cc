#include "cli/config_command.h"

#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/config_init.h"
#include "cli/exit_codes.h"
#include "cli/options_from_config.h"
#include "seragen/config/loader.h"

namespace seragen::cli {
namespace {

struct ConfigArgs {
  std::string file;
  std::vector<std::string> overrides;
};

int RunShow(const ConfigArgs& args) {
  config::LoadOptions opts;
  opts.overrides = args.overrides;
  Result<config::LoadedConfig> loaded = config::LoadConfigFile(args.file, opts);
  if (!loaded.ok()) {
    std::cerr << "seragen: invalid configuration (" << args.file << "):\n" << loaded.status().message() << "\n";
    return kExitUsage;
  }
  // Each repository with its effective environment, as a run uses it.
  for (config::RepoConfig& repo : loaded->config.repos) repo.environment = EffectiveEnvironment(loaded->config, repo);
  std::cout << config::RenderResolvedYaml(*loaded)
            << "# repos[].environment: the effective values (the top-level environment when a repository sets none)\n";
  return kExitOk;
}

}  // namespace

void AddConfigCommand(CLI::App& app, std::function<int()>* action) {
  CLI::App* cmd = app.add_subcommand("config", "Write, inspect and document configurations");
  cmd->require_subcommand(1);
  auto args = std::make_shared<ConfigArgs>();

  CLI::App* show = cmd->add_subcommand(
      "show", "Validate a config and print it fully resolved (defaults filled, secrets as ${VAR}), with its hashes");
  show->add_option("-c,--config", args->file, "YAML config file")->required();
  show->add_option("--set", args->overrides, "Override a key: --set agent.max_steps=50 (repeatable)")
      ->type_name("KEY=VALUE");
  show->callback([args, action] { *action = [args] { return RunShow(*args); }; });

  auto init_args = std::make_shared<ConfigInitArgs>();
  CLI::App* init = cmd->add_subcommand(
      "init", "Write a commented starting config for one repository and one endpoint (asks nothing)");
  init->add_option("--repo", init_args->repo, "Repository to mine: a path or a git URL")->required();
  init->add_option("--base-url", init_args->base_url, "OpenAI-compatible endpoint, e.g. http://gpu01:8000/v1")
      ->required();
  init->add_option("--model", init_args->model, "Model id the endpoint serves")->required();
  init->add_option("-o,--output", init_args->out, "File to write (default: stdout)");
  init->add_flag("--force", init_args->force, "Overwrite the output file");
  init->callback([init_args, action] { *action = [init_args] { return RunConfigInit(*init_args); }; });

  CLI::App* docs = cmd->add_subcommand("docs", "Print the reference of every config key (Markdown; docs/CONFIG.md)");
  docs->callback([action] {
    *action = [] {
      std::cout << config::RenderReferenceMarkdown();
      return kExitOk;
    };
  });
}

}  // namespace seragen::cli
