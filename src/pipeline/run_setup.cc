#include "seragen/pipeline/run_setup.h"

#include <fmt/format.h>

#include "pipeline/config_record.h"
#include "pipeline/repo_source.h"
#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/log.h"
#include "seragen/base/user_cache_dir.h"
#include "seragen/callgraph/graph_cache.h"
#include "seragen/callgraph/holdout.h"
#include "seragen/callgraph/language.h"
#include "seragen/callgraph/selection.h"
#include "seragen/config/shipped_data.h"
#include "seragen/journal/run_paths.h"
#include "seragen/repo/checkout_check.h"

namespace seragen::pipeline {
namespace {

callgraph::SelectionOptions SelectionFrom(const config::SelectionConfig& s) {
  callgraph::SelectionOptions o;
  o.include = s.include;
  o.exclude = s.exclude;
  for (const std::string& lang : s.languages) {
    o.languages.push_back(lang);
    if (lang == "typescript") o.languages.push_back("tsx");
  }
  o.exclude_tests = s.exclude_tests;
  o.test_path_patterns = s.test_patterns;
  o.exclude_auxiliary = s.exclude_auxiliary;
  o.auxiliary_patterns = s.auxiliary_patterns;
  o.min_lines = static_cast<int>(s.min_lines);
  o.max_lines = static_cast<int>(s.max_lines);
  o.max_folder_depth = static_cast<int>(std::min<std::int64_t>(s.max_folder_depth, 1 << 20));
  o.require_edges = callgraph::EdgeRequirementFromName(s.require_edges).value_or(callgraph::EdgeRequirement::kAny);
  o.max_functions = static_cast<std::size_t>(s.max_functions_per_repo);
  return o;
}

// The split a reused plan records must be the one the config asks for: a
// plan made without eval.holdout is never split afterwards (its tasks may
// already be trained on), nor a split plan merged back.
Status CheckReusedSplit(const config::Config& cfg, const std::vector<callgraph::PlannedTask>& plan,
                        std::vector<std::string>* notes) {
  callgraph::HoldoutSplit split = callgraph::SplitOf(plan);
  const bool wanted = cfg.eval.holdout > 0;
  if ((split.heldout_tasks > 0) != wanted) {
    if (wanted && split.functions < 2) return Status::Ok();  // nothing could be held out
    return FailedPreconditionError(
        "eval.holdout is " + fmt::format("{}", cfg.eval.holdout) + " but the run's plan (" +
        journal::TasksPath(cfg.run.dir) + ") was made " +
        (wanted ? "without a held-out split" : "with one (" + callgraph::FormatSplit(split) + ")") +
        "; the split is fixed when a run is planned: use a new run.dir, or set eval.holdout back");
  }
  if (split.heldout_tasks > 0) notes->push_back(callgraph::FormatSplit(split));
  return Status::Ok();
}

// Marks the held-out tasks of a new plan (eval.holdout), grouping files
// that share a function body.
void SplitPlan(const config::Config& cfg, const PreparedRun& run, const std::map<std::string, std::string>& commits,
               std::vector<callgraph::PlannedTask>* plan, std::vector<std::string>* notes) {
  if (cfg.eval.holdout <= 0) return;
  callgraph::BodyKeys bodies;
  for (const config::RepoConfig& rc : cfg.repos) {
    repo::FileFilter filter;
    filter.max_file_bytes = static_cast<std::uint64_t>(rc.max_file_bytes);
    filter.exclude_globs = rc.skip;
    RepoFileSource source(run.repos.at(rc.name).get(), commits.at(rc.name), filter);
    callgraph::AddBodyKeys(source, rc.name, *plan, &bodies);
  }
  callgraph::HoldoutOptions options;
  options.holdout = cfg.eval.holdout;
  options.seed = static_cast<std::uint64_t>(cfg.run.seed);
  notes->push_back(callgraph::FormatSplit(callgraph::MarkHoldout(plan, options, bodies)));
}

// The graph cache runs share (UserCacheDir("graphs")): a repository's skip
// globs chose its files, so they key its graph too.
callgraph::GraphCacheScope SharedGraphCache(const config::RepoConfig& rc) {
  callgraph::GraphCacheScope scope;
  scope.shared_dir = UserCacheDir("graphs");
  for (const std::string& glob : rc.skip) scope.source_key += "skip:" + glob + "\n";
  return scope;
}

}  // namespace

Result<RunResources> LoadRunResources(const config::Config& cfg) {
  RunResources r;
  r.prompts_dir = config::ConfiguredOrShipped(cfg.prompts.dir, config::Shipped::kPrompts);
  std::string tools_path = config::ConfiguredOrShipped(cfg.tools.file, config::Shipped::kTools);
  std::string messages_path = r.prompts_dir + "/tools/messages.yaml";
  SG_ASSIGN_OR_RETURN(r.tool_resources, tools::LoadToolResources(tools_path, messages_path, cfg.sandbox.mount_point));
  SG_ASSIGN_OR_RETURN(std::string tools_text, ReadFile(tools_path));
  SG_ASSIGN_OR_RETURN(std::string messages_text, ReadFile(messages_path));
  SG_ASSIGN_OR_RETURN(r.prompts, PromptLibrary::Load(r.prompts_dir, cfg.prompts, tools_text + "\n" + messages_text));
  return r;
}

Result<PreparedRun> PrepareRun(const config::LoadedConfig& loaded, bool allow_config_change) {
  const config::Config& cfg = loaded.config;
  PreparedRun run;
  run.run_dir = cfg.run.dir;
  SG_RETURN_IF_ERROR(MakeDirs(run.run_dir));
  // Refuse a changed config before the work of planning; record it only once a plan exists.
  SG_ASSIGN_OR_RETURN(ConfigClaim claim, CheckRecordedConfig(loaded, run.run_dir, allow_config_change));

  SG_ASSIGN_OR_RETURN(RunResources resources, LoadRunResources(cfg));
  run.prompts_dir = std::move(resources.prompts_dir);
  run.prompts = std::move(resources.prompts);
  run.tool_resources = std::move(resources.tool_resources);
  run.recipe_hash = ContentId({loaded.recipe_hash, run.prompts.hash()}, 64);

  std::map<std::string, std::string> commits;
  for (const config::RepoConfig& rc : cfg.repos) {
    auto repo = repo::Repository::OpenOrClone(rc.source, journal::RepoCacheDir(run.run_dir));
    if (!repo.ok()) return repo.status().WithContext("repos." + rc.name);
    auto commit = repo->ResolveCommit(rc.ref);
    if (!commit.ok()) return commit.status().WithContext("repos." + rc.name + ".ref '" + rc.ref + "'");
    commits[rc.name] = *commit;
    // Content no working copy can hold fails here, once, not in every task.
    Status checkout = repo::CheckCheckoutable(repo->git_dir(), *commit, run.run_dir);
    if (!checkout.ok()) return checkout.WithContext("repos." + rc.name + " (" + repo->git_dir() + ")");
    run.repos[rc.name] = std::make_shared<repo::Repository>(std::move(*repo));
  }

  std::string tasks_path = journal::TasksPath(run.run_dir);
  if (Result<std::vector<callgraph::PlannedTask>> existing = callgraph::ReadTasksFile(tasks_path); existing.ok()) {
    run.plan = std::move(*existing);
    run.plan_reused = true;
    SG_RETURN_IF_ERROR(CheckReusedSplit(cfg, run.plan, &run.plan_notes));
    SG_ASSIGN_OR_RETURN(run.previous_config, RecordConfig(claim));
    return run;
  } else if (existing.status().code() != StatusCode::kNotFound) {
    return existing.status();  // a damaged plan is never replaced by a new one
  }

  std::vector<callgraph::CallGraph> graphs;
  graphs.reserve(cfg.repos.size());
  std::vector<callgraph::RepoSelection> selections;
  callgraph::SelectionOptions sel = SelectionFrom(cfg.selection);
  SG_RETURN_IF_ERROR(callgraph::ValidateSelectionOptions(sel));
  for (const config::RepoConfig& rc : cfg.repos) {
    repo::FileFilter filter;
    filter.max_file_bytes = static_cast<std::uint64_t>(rc.max_file_bytes);
    filter.exclude_globs = rc.skip;
    RepoFileSource source(run.repos[rc.name].get(), commits[rc.name], filter);
    callgraph::GraphOptions gopts;
    gopts.max_file_bytes = static_cast<std::uint64_t>(rc.max_file_bytes);
    gopts.link_ambiguous = cfg.selection.resolve_ambiguous;
    bool cached = false;
    auto graph = callgraph::BuildGraphCached(source, journal::GraphDir(run.run_dir), rc.name, commits[rc.name], gopts,
                                             &cached, SharedGraphCache(rc));
    if (!graph.ok()) return graph.status().WithContext("call graph of " + rc.name);
    graphs.push_back(std::move(*graph));
    const callgraph::CallGraph& g = graphs.back();
    callgraph::SelectionCounts counts;
    auto picked = callgraph::SelectFunctions(g, sel, static_cast<std::uint64_t>(cfg.run.seed), rc.name, &counts);
    run.plan_notes.push_back(
        rc.name + "@" + commits[rc.name].substr(0, 12) + ": " + std::to_string(g.stats.files_parsed) + " files, " +
        std::to_string(g.nodes.size()) + " functions, " + std::to_string(g.edges.size()) + " call edges" +
        (cached ? " (graph from cache)" : "") + "; " + callgraph::FormatSelectionCounts(counts, picked.size()));
    selections.push_back({rc.name, commits[rc.name], &g, std::move(picked)});
  }
  callgraph::PlanOptions popts;
  popts.seed = static_cast<std::uint64_t>(cfg.run.seed);
  popts.replicas = static_cast<int>(cfg.selection.replicas);
  popts.category_mode =
      cfg.selection.categories.mode == "all" ? callgraph::CategoryMode::kAll : callgraph::CategoryMode::kSample;
  popts.categories_per_function = static_cast<int>(cfg.selection.categories.per_function);
  popts.category_count = static_cast<int>(run.prompts.categories().size());
  popts.recipe_hash = run.recipe_hash;
  SG_RETURN_IF_ERROR(callgraph::ValidatePlanOptions(popts));
  run.plan = callgraph::PlanTasks(selections, popts);
  SplitPlan(cfg, run, commits, &run.plan, &run.plan_notes);
  SG_RETURN_IF_ERROR(callgraph::WriteTasksFile(tasks_path, run.plan));
  SG_ASSIGN_OR_RETURN(run.previous_config, RecordConfig(claim));
  return run;
}

}  // namespace seragen::pipeline
