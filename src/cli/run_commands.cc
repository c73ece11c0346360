#include "cli/run_commands.h"

#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "cli/run_command.h"
#include "seragen/base/file_util.h"
#include "seragen/config/loader.h"
#include "seragen/pipeline/repo_graph.h"

namespace seragen::cli {
namespace {

struct ConfigArgs {
  std::string file;
  std::vector<std::string> overrides;
};

void AddConfigOptions(CLI::App* cmd, ConfigArgs* args) {
  cmd->add_option("-c,--config", args->file, "YAML config file")->required();
  cmd->add_option("--set", args->overrides, "Override a key: --set agent.max_steps=50 (repeatable)")
      ->type_name("KEY=VALUE");
}

// Loads the config or prints every problem; nullopt means exit 2.
std::optional<config::LoadedConfig> Load(const ConfigArgs& args) {
  config::LoadOptions opts;
  opts.overrides = args.overrides;
  auto loaded = config::LoadConfigFile(args.file, opts);
  if (!loaded.ok()) {
    std::cerr << "seragen: invalid configuration (" << args.file << "):\n" << loaded.status().message() << "\n";
    return std::nullopt;
  }
  return std::move(*loaded);
}

// `seragen env check`.
void AddEnvCommand(CLI::App& app, std::function<int()>* action) {
  auto args = std::make_shared<ConfigArgs>();
  auto repo = std::make_shared<std::string>();
  CLI::App* env = app.add_subcommand("env", "Execution environments");
  env->require_subcommand(1);
  CLI::App* cmd = env->add_subcommand(
      "check",
      "Prepare (or reuse) a repository's environment and run environment.check in the sandbox a rollout gets; "
      "prints what the rollout sees. Exit 0 check passed, 1 setup or check failed, 2 bad input.");
  AddConfigOptions(cmd, args.get());
  cmd->add_option("--repo", *repo, "Repository name (default: the first in repos)");
  cmd->callback([args, repo, action] {
    *action = [args, repo] {
      auto loaded = Load(*args);
      if (!loaded) return kExitUsage;
      return EnvCheckCommand(*loaded, *repo);
    };
  });
}

struct GraphArgs {
  std::string repo, commit = "HEAD", format = "json", cache_dir, output;
  bool stats = false;
  bool link_ambiguous = false;
};

// `seragen graph`: the graph (pipeline/repo_graph.h) printed or written to a file.
int GraphCommand(const GraphArgs& a) {
  pipeline::GraphRequest request;
  request.source = a.repo;
  request.commit = a.commit;
  request.cache_dir = a.cache_dir;
  request.options.link_ambiguous = a.link_ambiguous;
  auto graph = pipeline::BuildRequestedGraph(request);
  if (!graph.ok()) {
    std::cerr << "seragen graph: " << graph.status().message() << "\n";
    return graph.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitRuntimeFailure;
  }
  using pipeline::GraphFormat;
  const GraphFormat format = a.stats ? GraphFormat::kStats : a.format == "dot" ? GraphFormat::kDot : GraphFormat::kJson;
  const std::string text = pipeline::RenderGraph(*graph, format);
  if (a.output.empty()) {
    std::cout << text;
    return kExitOk;
  }
  if (Status written = WriteFileAtomic(a.output, text); !written.ok()) {
    std::cerr << "seragen graph: " << written.message() << "\n";
    return kExitRuntimeFailure;
  }
  return kExitOk;
}

}  // namespace

void AddRunCommands(CLI::App& app, std::function<int()>* action) {
  {
    auto args = std::make_shared<ConfigArgs>();
    auto flags = std::make_shared<RunFlags>();
    CLI::App* cmd = app.add_subcommand(
        "run",
        "Run the whole pipeline (plan, rollout 1, issue, rollout 2, verification) for this shard. Rerun the same "
        "command to resume. Exit 0 done, 1 failure/abort, 2 bad input, 75 interrupted (rerun to resume).");
    AddConfigOptions(cmd, args.get());
    cmd->add_option("--shard", flags->shard,
                    "This process's shard K/N (default: run.shard, then Slurm array variables)");
    cmd->add_flag("--allow-config-change", flags->allow_config_change,
                  "Resume even though data-affecting settings changed since the run started");
    cmd->callback([args, flags, action] {
      *action = [args, flags] {
        auto loaded = Load(*args);
        if (!loaded) return kExitUsage;
        return ExitCodeFor(RunCommand(*loaded, *flags));
      };
    });
  }
  {
    auto args = std::make_shared<ConfigArgs>();
    CLI::App* cmd =
        app.add_subcommand("plan", "Build the deterministic task list (RUN_DIR/tasks.jsonl) without calling any model");
    AddConfigOptions(cmd, args.get());
    auto list = std::make_shared<bool>(false);
    cmd->add_flag("--functions", *list,
                  "Also list every planned task: repository, file:lines, function, category and replica");
    cmd->callback([args, list, action] {
      *action = [args, list] {
        auto loaded = Load(*args);
        if (!loaded) return kExitUsage;
        return PlanCommand(*loaded, *list);
      };
    });
  }
  AddEnvCommand(app, action);
  {
    auto a = std::make_shared<GraphArgs>();
    CLI::App* cmd = app.add_subcommand("graph", "Call graph of a repository (or a plain directory) and its statistics");
    cmd->add_option("repo", a->repo, "Repository path or URL, or a directory")->required();
    cmd->add_option("--commit", a->commit, "Branch, tag or commit (git repositories)")->capture_default_str();
    cmd->add_option("--format", a->format, "json or dot")->check(CLI::IsMember({"json", "dot"}))->capture_default_str();
    cmd->add_flag("--stats", a->stats, "Print statistics instead of the graph");
    cmd->add_flag("--link-ambiguous", a->link_ambiguous, "Link ambiguous calls to every candidate");
    cmd->add_option("--cache-dir", a->cache_dir, "Cache graphs here (keyed by commit, extractor version and queries)");
    cmd->add_option("-o,--output", a->output, "Write to this file instead of stdout");
    cmd->callback([a, action] { *action = [a] { return GraphCommand(*a); }; });
  }
}

}  // namespace seragen::cli
