#include "cli/run_commands.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "cli/run_command.h"
#include "seragen/callgraph/graph_cache.h"
#include "seragen/callgraph/graph_io.h"
#include "seragen/config/loader.h"
#include "seragen/journal/run_paths.h"
#include "seragen/pipeline/repo_source.h"
#include "seragen/repo/repository.h"

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
    cmd->callback([args, action] {
      *action = [args] {
        auto loaded = Load(*args);
        if (!loaded) return kExitUsage;
        return PlanCommand(*loaded);
      };
    });
  }
  AddEnvCommand(app, action);
  {
    struct GraphArgs {
      std::string repo, commit = "HEAD", format = "json", cache_dir, output;
      bool stats = false;
      bool link_ambiguous = false;
    };
    auto a = std::make_shared<GraphArgs>();
    CLI::App* cmd = app.add_subcommand("graph", "Call graph of a repository (or a plain directory) and its statistics");
    cmd->add_option("repo", a->repo, "Repository path or URL, or a directory")->required();
    cmd->add_option("--commit", a->commit, "Branch, tag or commit (git repositories)")->capture_default_str();
    cmd->add_option("--format", a->format, "json or dot")->check(CLI::IsMember({"json", "dot"}))->capture_default_str();
    cmd->add_flag("--stats", a->stats, "Print statistics instead of the graph");
    cmd->add_flag("--link-ambiguous", a->link_ambiguous, "Link ambiguous calls to every candidate");
    cmd->add_option("--cache-dir", a->cache_dir, "Cache graphs here (keyed by commit, extractor version and queries)");
    cmd->add_option("-o,--output", a->output, "Write to this file instead of stdout");
    cmd->callback([a, action] {
      *action = [a]() -> int {
        callgraph::GraphOptions gopts;
        gopts.link_ambiguous = a->link_ambiguous;
        Result<callgraph::CallGraph> graph = InternalError("unset");
        bool is_git = std::filesystem::exists(a->repo + "/.git") || repo::LooksLikeUrl(a->repo) ||
                      std::filesystem::exists(a->repo + "/HEAD");
        if (is_git) {
          auto r = repo::Repository::OpenOrClone(a->repo, a->cache_dir.empty() ? ".seragen-cache" : a->cache_dir);
          if (!r.ok()) {
            std::cerr << "seragen graph: " << r.status().message() << "\n";
            return kExitUsage;
          }
          auto commit = r->ResolveCommit(a->commit);
          if (!commit.ok()) {
            std::cerr << "seragen graph: " << commit.status().message() << "\n";
            return kExitUsage;
          }
          pipeline::RepoFileSource source(&*r, *commit, repo::FileFilter{});
          std::string name = std::filesystem::path(a->repo).filename().string();
          graph = a->cache_dir.empty()
                      ? callgraph::BuildGraph(source, gopts)
                      : callgraph::BuildGraphCached(source, journal::GraphDir(a->cache_dir), name, *commit, gopts);
        } else if (std::filesystem::is_directory(a->repo)) {
          callgraph::DirectoryFileSource source(a->repo);
          graph = callgraph::BuildGraph(source, gopts);
        } else {
          std::cerr << "seragen graph: " << a->repo << " is neither a repository nor a directory\n";
          return kExitUsage;
        }
        if (!graph.ok()) {
          std::cerr << "seragen graph: " << graph.status().message() << "\n";
          return kExitRuntimeFailure;
        }
        std::string text = a->stats             ? callgraph::FormatGraphStats(graph->stats)
                           : a->format == "dot" ? callgraph::WriteGraphDot(*graph)
                                                : callgraph::WriteGraphJson(*graph);
        if (a->output.empty()) {
          std::cout << text;
          if (!text.empty() && text.back() != '\n') std::cout << "\n";
        } else {
          std::ofstream out(a->output);
          out << text;
          if (!out) {
            std::cerr << "seragen graph: cannot write " << a->output << "\n";
            return kExitRuntimeFailure;
          }
        }
        return kExitOk;
      };
    });
  }
}

}  // namespace seragen::cli
