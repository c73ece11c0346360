#include "cli/eval_command.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/exit_codes.h"
#include "cli/model_setup.h"
#include "cli/options_from_config.h"
#include "cli/process.h"
#include "cli/run_command.h"
#include "cli/sandbox_setup.h"
#include "cli/user_text.h"
#include "seragen/agent/agent_messages.h"
#include "seragen/base/file_util.h"
#include "seragen/base/thread_pool.h"
#include "seragen/eval/eval_runner.h"
#include "seragen/eval/eval_summary.h"
#include "seragen/eval/eval_tasks.h"
#include "seragen/http/curl_client.h"
#include "seragen/journal/run_paths.h"
#include "seragen/loop/event_loop.h"
#include "seragen/pipeline/run_setup.h"
#include "seragen/pipeline/run_workspace.h"
#include "seragen/repo/repository.h"
#include "seragen/report/eval_page.h"

namespace seragen::cli {
namespace {

struct EvalArgs {
  std::string run_dir, base_url, model, label, api_key_env, out_dir;
  int seeds = 0;        // 0: eval.seeds of the run's config
  int concurrency = 0;  // 0: run.concurrency
  std::vector<std::string> overrides;
  std::vector<std::string> compare;
  std::string html;  // --compare: also write the comparison page here
  bool json = false;
};

int Failed(const Status& s) {
  std::cerr << "seragen eval: " << WithoutStatusCodeNames(s.message()) << "\n";
  const StatusCode c = s.code();
  return c == StatusCode::kInvalidArgument || c == StatusCode::kFailedPrecondition || c == StatusCode::kNotFound
             ? kExitUsage
             : kExitRuntimeFailure;
}

// The run's saved config with --set applied, pointed at the evaluated
// endpoint and model (the teacher's endpoints and key are not used).
Result<config::Config> EvalConfig(const EvalArgs& a) {
  const std::string path = journal::ConfigYamlPath(a.run_dir);
  SG_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  config::LoadOptions options;
  options.overrides = a.overrides;
  SG_ASSIGN_OR_RETURN(config::LoadedConfig loaded, config::LoadConfigText(text, path, options));
  config::Config cfg = std::move(loaded.config);
  config::EndpointConfig endpoint;
  endpoint.base_url = a.base_url;
  endpoint.api_key.env_var = a.api_key_env;
  cfg.llm.endpoints = {endpoint};
  cfg.llm.api_key = {};
  cfg.llm.model = a.model;
  cfg.llm.server = "auto";
  return cfg;
}

Result<std::map<std::string, std::shared_ptr<repo::Repository>>> OpenRepos(const config::Config& cfg,
                                                                           const std::string& run_dir) {
  std::map<std::string, std::shared_ptr<repo::Repository>> repos;
  for (const config::RepoConfig& rc : cfg.repos) {
    auto repo = repo::Repository::OpenOrClone(rc.source, journal::RepoCacheDir(run_dir));
    if (!repo.ok()) return repo.status().WithContext("repos." + rc.name);
    repos[rc.name] = std::make_shared<repo::Repository>(std::move(*repo));
  }
  return repos;
}

Result<std::vector<eval::EvalSummary>> Summaries(const std::vector<std::string>& dirs) {
  std::vector<eval::EvalSummary> summaries;
  for (const std::string& dir : dirs) {
    SG_ASSIGN_OR_RETURN(eval::LoadedEvalLog log, eval::ReadEvalLog(dir));
    if (!log.header) return NotFoundError(dir + " holds no evaluation (no results.jsonl)");
    summaries.push_back(eval::Summarize(*log.header, log.results, dir));
  }
  return summaries;
}

// Prints the evaluations in `dirs` side by side; with `html`, also writes
// the comparison page there.
int ShowResults(const std::vector<std::string>& dirs, bool json, const std::string& html = "") {
  auto summaries = Summaries(dirs);
  if (!summaries.ok()) return Failed(summaries.status());
  std::cout << (json ? eval::SummaryJson(*summaries) : eval::FormatComparison(*summaries));
  if (html.empty()) return kExitOk;
  if (Status s = WriteFileAtomic(html, report::RenderEvalComparison(*summaries)); !s.ok()) return Failed(s);
  std::cerr << "seragen eval: comparison page " << html << "\n";
  return kExitOk;
}

struct EvalInputs {
  config::Config cfg;
  eval::EvalTaskSet tasks;
  pipeline::RunResources resources;
  std::map<std::string, std::shared_ptr<repo::Repository>> repos;
};

Result<EvalInputs> LoadInputs(const EvalArgs& a) {
  EvalInputs in;
  SG_ASSIGN_OR_RETURN(in.cfg, EvalConfig(a));
  SG_ASSIGN_OR_RETURN(in.tasks, eval::EvalTasksOf(a.run_dir));
  if (in.tasks.heldout == 0) {
    return FailedPreconditionError("the plan of " + a.run_dir +
                                   " holds no task out for evaluation (set eval.holdout before the run is planned; "
                                   "docs/EVAL.md)");
  }
  if (in.tasks.tasks.empty()) {
    return FailedPreconditionError("no held-out task of " + a.run_dir +
                                   " has an issue and a reference patch yet: finish the run first");
  }
  SG_ASSIGN_OR_RETURN(in.resources, pipeline::LoadRunResources(in.cfg));
  SG_ASSIGN_OR_RETURN(in.repos, OpenRepos(in.cfg, a.run_dir));
  return in;
}

int ExitOf(const eval::EvalRunOutcome& o) {
  if (!o.abort_reason.empty()) {
    std::cerr << "seragen eval: stopped: " << WithoutStatusCodeNames(o.abort_reason) << "\n";
    return kExitUsage;
  }
  if (o.stopped) {
    std::cerr << "seragen eval: interrupted; rerun the same command to resume\n";
    return kExitInterrupted;
  }
  if (o.infra_failures > 0) {
    std::cerr << "seragen eval: " << o.infra_failures
              << " rollout(s) failed for infrastructure reasons; rerun the same command to retry them\n";
    return kExitIncomplete;
  }
  return kExitOk;
}

int RunEvalCommand(const EvalArgs& a) {
  log::Logger logger("eval");
  auto in = LoadInputs(a);
  if (!in.ok()) return Failed(in.status());
  config::Config& cfg = in->cfg;
  eval::EvalHeader header{a.model, a.label.empty() ? a.model : a.label, a.run_dir, cfg.verify.rule,
                          cfg.verify.threshold};
  auto log = eval::EvalLog::Open(a.out_dir, header);
  if (!log.ok()) return Failed(log.status());
  auto done = eval::ReadEvalLog(a.out_dir);
  if (!done.ok()) return Failed(done.status());

  std::optional<sandbox::SlotUidLease> uid_lease;
  auto env = WorkspaceFor(cfg, a.out_dir, uid_lease, logger);
  if (!env.ok()) return Failed(env.status());
  env->sandbox.hidden_paths.push_back(a.run_dir);  // the reference patches and trajectories
  if (Status ok = CheckSandbox(*env, logger); !ok.ok()) return Failed(ok);
  pipeline::RunWorkspaceFactory workspaces(in->repos, &in->resources.tool_resources, *env);
  auto messages = agent::AgentMessages::Load(in->resources.prompts_dir + "/format_errors");
  if (!messages.ok()) return Failed(messages.status());

  std::string model;
  auto copts = ChatOptionsFor(cfg, model, logger);
  if (!copts.ok()) return Failed(copts.status());
  loop::EventLoop http_loop;
  auto curl = std::make_unique<http::CurlClient>(http_loop, CurlOptionsFrom(cfg));
  auto chat = std::make_unique<llm::HttpChatClient>(*curl, http_loop, SystemClock(), std::move(*copts));
  if (Status up = WaitForAnEndpoint(*chat, cfg.llm.startup_wait_s, logger); !up.ok()) return Failed(up);

  eval::EvalRunSettings settings;
  settings.stage = StageSettingsFrom(cfg, model);
  settings.seeds = a.seeds > 0 ? a.seeds : static_cast<int>(cfg.eval.seeds);
  settings.concurrency = a.concurrency > 0 ? a.concurrency : static_cast<int>(FixedConcurrency(cfg));
  settings.eval_dir = a.out_dir;
  settings.tests_key = eval::EnvironmentsKey(cfg);
  loop::EventLoop loop;
  ThreadPool workers(WorkerThreadsFrom(cfg));
  eval::EvalRunDeps deps{&in->resources.prompts, &*messages, chat.get(), &workspaces, &loop, &workers,
                         &SystemClock(),         &*log};
  logger.Info("{} task(s) x {} seed(s) with {} at {} -> {}", in->tasks.tasks.size(), settings.seeds, model, a.base_url,
              a.out_dir);
  eval::EvalRunOutcome outcome;
  {
    StopSignals signals;
    outcome = eval::RunEval(in->tasks.tasks, done->results, settings, deps, [&signals] { return signals.requested(); });
  }
  chat.reset();
  curl.reset();
  logger.Info("{} rollout(s) finished now, {} before, {} planned", outcome.finished, outcome.done_before,
              outcome.planned);
  int shown = ShowResults({a.out_dir}, a.json);
  if (shown == kExitOk) {
    auto final_log = eval::ReadEvalLog(a.out_dir);
    if (final_log.ok() && final_log->header) {
      Status s =
          WriteFileAtomic(a.out_dir + "/summary.json",
                          eval::SummaryJson({eval::Summarize(*final_log->header, final_log->results, a.out_dir)}));
      if (!s.ok()) logger.Warn("{}", s.ToString());
    }
  }
  const int code = ExitOf(outcome);
  return code != kExitOk ? code : shown;
}

std::string Absolute(const std::string& path) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

// What `seragen eval` runs once its flags are parsed: a comparison, or an
// evaluation with its directories made absolute.
int RunEvalArgs(EvalArgs args) {
  if (!args.compare.empty()) return ShowResults(args.compare, args.json, args.html);
  if (!args.html.empty()) {
    std::cerr << "seragen eval: --html needs --compare EVAL_DIR...\n";
    return kExitUsage;
  }
  if (args.run_dir.empty() || args.base_url.empty() || args.model.empty() || args.out_dir.empty()) {
    std::cerr << "seragen eval: RUN_DIR, --base-url, --model and -o are required (or --compare EVAL_DIR...)\n";
    return kExitUsage;
  }
  args.run_dir = Absolute(args.run_dir);
  args.out_dir = Absolute(args.out_dir);
  return RunEvalCommand(args);
}

constexpr const char* kEvalHelp =
    "Run a model on a run's held-out tasks with the rollout-2 harness and score it against the teacher's reference "
    "patches (docs/EVAL.md); or compare finished evaluations (--compare). Rerun the same command to resume.";

}  // namespace

void AddEvalCommand(CLI::App& app, std::function<int()>* action) {
  auto a = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand("eval", kEvalHelp);
  cmd->add_option("run_dir", a->run_dir, "Run directory whose plan holds tasks out (eval.holdout)");
  cmd->add_option("--base-url", a->base_url, "OpenAI-compatible endpoint serving the model, e.g. http://host:8000/v1");
  cmd->add_option("--model", a->model, "Model id to evaluate (as the endpoint serves it)");
  cmd->add_option("--label", a->label, "Name of this model in comparisons (default: the model id)");
  cmd->add_option("--api-key-env", a->api_key_env, "Environment variable holding the endpoint's API key, if any");
  cmd->add_option("--seeds", a->seeds, "Rollouts per task (default eval.seeds)")->check(CLI::Range(1, 100));
  cmd->add_option("--concurrency", a->concurrency, "Rollouts at once (default run.concurrency)")
      ->check(CLI::Range(1, 512));
  cmd->add_option("-o,--out", a->out_dir, "Evaluation directory (one per model; its results.jsonl is the journal)");
  cmd->add_option("--set", a->overrides, "Override a key of the run's config, e.g. --set agent.max_steps=50")
      ->type_name("KEY=VALUE");
  cmd->add_option("--compare", a->compare, "Print finished evaluations side by side (EVAL_DIR...), run nothing")
      ->expected(1, 64);
  cmd->add_option("--html", a->html,
                  "With --compare: also write the comparison page (rates with intervals, per-task table) to this "
                  "HTML file");
  cmd->add_flag("--json", a->json, "Results as one JSON object");
  cmd->callback([a, action] { *action = [a] { return RunEvalArgs(*a); }; });
}

}  // namespace seragen::cli
