#include "cli/run_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "cli/auto_concurrency_setup.h"
#include "cli/env_gate.h"
#include "cli/exit_codes.h"
#include "cli/model_setup.h"
#include "cli/occupancy_file.h"
#include "cli/options_from_config.h"
#include "cli/process.h"
#include "cli/run_lines.h"
#include "cli/sandbox_setup.h"
#include "cli/user_text.h"
#include "seragen/agent/agent_messages.h"
#include "seragen/base/clock.h"
#include "seragen/base/log.h"
#include "seragen/base/terminal_text.h"
#include "seragen/base/user_cache_dir.h"
#include "seragen/callgraph/plan.h"
#include "seragen/config/shard.h"
#include "seragen/http/curl_client.h"
#include "seragen/journal/run_paths.h"
#include "seragen/llm/http_chat_client.h"
#include "seragen/loop/event_loop.h"
#include "seragen/pipeline/open_shard.h"
#include "seragen/pipeline/run_demos.h"
#include "seragen/pipeline/run_setup.h"
#include "seragen/pipeline/run_workspace.h"
#include "seragen/pipeline/shard_run.h"
#include "seragen/repo/repository.h"
#include "seragen/runview/run_state.h"

namespace seragen::cli {
namespace {

using runview::RunResult;

int Fail(const std::string& what, const Status& s) {
  std::cerr << "seragen " << what << ": " << WithoutStatusCodeNames(s.message()) << "\n";
  bool usage = s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kFailedPrecondition ||
               s.code() == StatusCode::kNotFound;
  return usage ? kExitUsage : kExitRuntimeFailure;
}

RunResult FailRun(const std::string& what, const Status& s) {
  return Fail(what, s) == kExitUsage ? RunResult::kConfigStop : RunResult::kRuntimeError;
}

// Resolves the shard, prepares the run directory and plan, and opens the
// shard's journal (its log file from then on).
Result<pipeline::OpenedShard> OpenShardFor(const config::LoadedConfig& loaded, const RunFlags& flags,
                                           const log::Logger& logger) {
  const config::Config& cfg = loaded.config;
  const bool allow_config_change = flags.allow_config_change || cfg.run.allow_config_change;
  SG_ASSIGN_OR_RETURN(config::ShardSpec shard, config::ResolveShard(flags.shard, cfg.run.shard));
  SG_ASSIGN_OR_RETURN(pipeline::PreparedRun run, pipeline::PrepareRun(loaded, allow_config_change));
  for (const std::string& note : run.plan_notes) logger.Info("{}", note);
  pipeline::OpenShardOptions options;
  options.allow_config_change = allow_config_change;
  options.journal_opened = [](const std::string& shard_dir) { log::SetLogFile(journal::ShardLogPath(shard_dir)); };
  return pipeline::OpenShard(std::move(run), shard, options, logger);
}

}  // namespace

Result<pipeline::WorkspaceOptions> WorkspaceFor(const config::Config& cfg, const std::string& run_dir,
                                                std::optional<sandbox::SlotUidLease>& uid_lease,
                                                const log::Logger& logger) {
  pipeline::WorkspaceOptions env = WorkspaceOptionsFrom(cfg);
  if (::geteuid() == 0) {
    SG_ASSIGN_OR_RETURN(sandbox::SlotUidLease lease, ClaimSlotUids(cfg, logger));
    uid_lease.emplace(std::move(lease));
    env.slot_uids = uid_lease->uids();
    env.slot_cgroups = PrepareSlotCgroups(cfg, uid_lease->uids(), logger);
  }
  if (cfg.sandbox.mode == "bwrap") {
    SG_ASSIGN_OR_RETURN(env.pool.pool_dir, ChooseWorkcopyDir(run_dir, cfg.workcopies.dir, logger));
    // The node's shared Python bytecode (env/bytecode_cache.h), under each
    // rollout's own writable layer (env/bytecode_layer.h).
    env.bytecode_cache_dir = UserCacheDir("pycache");
  } else {
    env.pool.pool_dir = cfg.workcopies.dir.empty() ? journal::WorkcopiesDir(run_dir) : cfg.workcopies.dir;
  }
  env.env_log_dir = journal::EnvLogDir(run_dir);
  // Agents must not read the run's other copies, trajectories or journals.
  env.sandbox.hidden_paths = {run_dir};
  if (env.pool.pool_dir.rfind(run_dir + "/", 0) != 0) env.sandbox.hidden_paths.push_back(env.pool.pool_dir);
  return env;
}

Result<llm::ChatClientOptions> ChatOptionsFor(const config::Config& cfg, std::string& model,
                                              const log::Logger& logger) {
  SG_ASSIGN_OR_RETURN(llm::ChatClientOptions copts, ChatClientOptionsFrom(cfg));
  SG_ASSIGN_OR_RETURN(model, CheckEndpointsAndModel(cfg, logger));
  SG_ASSIGN_OR_RETURN(llm::RequestOverrides overrides, RequestOverridesOf(cfg.llm));
  ResolveServerProfiles(cfg.llm, model, overrides, copts.endpoints, logger);
  return copts;
}

namespace {

// What to do about failed environment setups ("" when none failed).
std::string FixSetupNote(const std::vector<std::string>& failed_setups) {
  if (failed_setups.empty()) return "";
  std::string which;
  for (const std::string& f : failed_setups) which += (which.empty() ? "" : ", ") + f;
  return "environment setup failed for " + which + ": fix the setup (see the ERROR above), then rerun";
}

// Prints how the shard ended: the final line on stdout, and on stderr why it
// stopped or what is left to do. Code names of statuses are left out.
void ReportOutcome(const pipeline::ShardOutcome& o, const pipeline::ShardSpec& shard,
                   const std::vector<std::string>& failed_setups) {
  std::cout << "shard " << shard.index << "/" << shard.count << ": " << FinalLine(o.summary, o.seconds) << "\n";
  auto user = [](const std::string& text) { return WithoutStatusCodeNames(text); };
  switch (o.result) {
    case RunResult::kConfigStop:
      std::cerr << "seragen run: stopped: " << user(o.run_stop ? o.run_stop->message() : "")
                << "\nFix the setting named above (see docs/SERVERS.md), then rerun the same command; "
                   "failed tasks are retried.\n";
      return;
    case RunResult::kRuntimeError:
      std::cerr << "seragen run: aborted: " << user(o.summary.abort_detail) << "\n";
      return;
    case RunResult::kInterrupted: std::cerr << "seragen run: interrupted; rerun the same command to resume\n"; return;
    case RunResult::kComplete: return;
    case RunResult::kIncomplete:
    case RunResult::kNothingSucceeded: {
      const std::string fix = FixSetupNote(failed_setups);
      std::cerr << "seragen run: " << o.tally.done << " of " << o.tally.planned << " planned tasks done, "
                << o.tally.infra_failed << " infrastructure failure(s)"
                << (o.summary.stop_reason.empty() ? "" : "; stopped: " + user(o.summary.stop_reason)) << "; "
                << (fix.empty() ? "rerun the same command to retry the rest" : fix) << "\n";
      return;
    }
  }
}

// The run stops once this many rollouts are in and too many were env_broken.
constexpr std::uint64_t kEnvHealthMinRollouts = 8;

RunResult ReportEnvStop(const pipeline::EnvHealthTally& h, const config::Config& cfg, const std::string& config_path) {
  std::cerr << "seragen run: stopped: " << h.broken() << " of " << h.rollouts()
            << " rollouts ran a command that could not import the repository's own code (env_broken; more than "
               "run.max_env_broken_share = "
            << cfg.run.max_env_broken_share
            << "): the environment does not install the repository, so the agent cannot run the code it changes.\n"
               "fix: correct environment.setup in "
            << config_path << " and try it with `seragen env check -c " << config_path
            << "`, then rerun the same command (finished tasks are kept; `seragen export --require-env-ok` leaves "
               "such rollouts out)\n";
  return RunResult::kConfigStop;
}

// `cfg` with run.concurrency auto replaced by what the node can hold
// (`bound`, logged); `cfg` itself when the concurrency is fixed.
config::Config SizedForNode(const config::Config& cfg, const pipeline::PreparedRun& run, pipeline::NodeBound& bound,
                            const log::Logger& logger) {
  config::Config sized = cfg;
  if (cfg.run.concurrency != 0) return sized;
  const std::string copies = cfg.workcopies.dir.empty() ? journal::WorkcopiesDir(run.run_dir) : cfg.workcopies.dir;
  bound = pipeline::TasksTheNodeHolds(ReadNodeResources(copies), TaskNeedsFor(cfg, run));
  logger.Info("run.concurrency auto: this node holds at most {} task(s) ({}: {})", bound.tasks, bound.bound_by,
              bound.detail);
  sized.run.concurrency = bound.tasks;
  return sized;
}

// Lets an AutoConcurrency move the scheduler's limit below `bound`
// (AutoConcurrencyOptionsFor); `record` follows its status.
void SteerConcurrency(pipeline::ShardRunInputs& in, const pipeline::NodeBound& bound, const llm::HttpChatClient& chat,
                      llm::ServerLoadPoller& poller, journal::ConcurrencyRecord& record) {
  const std::vector<llm::EndpointState> endpoints = chat.EndpointSnapshot();
  int caps = 0;
  for (const llm::EndpointState& e : endpoints) caps += e.max_concurrency;
  in.auto_concurrency = AutoConcurrencyOptionsFor(bound, caps, static_cast<int>(endpoints.size()));
  in.sample_load = LoadSamplerFor(chat, poller, ReadNodeResources("").cores);
  record = ConcurrencyRecordOf(pipeline::AutoConcurrencyStatus{});
  in.on_auto_status = [&record](const pipeline::AutoConcurrencyStatus& s) { record = ConcurrencyRecordOf(s); };
}

}  // namespace

int PlanCommand(const config::LoadedConfig& loaded, bool list_functions) {
  auto run = pipeline::PrepareRun(loaded, /*allow_config_change=*/false);
  if (!run.ok()) return Fail("plan", run.status());
  for (const std::string& note : run->plan_notes) std::cout << note << "\n";
  std::map<std::string, std::size_t> per_repo;
  for (const auto& t : run->plan) per_repo[t.repo]++;
  std::cout << run->plan.size() << " tasks" << (run->plan_reused ? " (existing plan reused)" : "") << " in "
            << journal::TasksPath(run->run_dir) << "\n";
  for (const auto& [repo, n] : per_repo) std::cout << "  " << repo << ": " << n << "\n";
  std::cout << "picked functions per directory:\n";
  for (const auto& [dir, n] : callgraph::PickedPerDirectory(run->plan)) std::cout << "  " << dir << ": " << n << "\n";
  if (!list_functions) return kExitOk;
  std::cout << "planned tasks (repository file:lines function, category, replica):\n";
  for (const callgraph::PlannedTask& t : run->plan) {
    std::cout << "  " << t.repo << " " << TerminalLine(t.file) << ":" << t.start_line << "-" << t.end_line << " "
              << TerminalLine(t.qualname) << ", category " << t.category << ", replica " << t.replica << "\n";
  }
  return kExitOk;
}

RunResult RunCommand(const config::LoadedConfig& loaded, const RunFlags& flags) {
  const config::Config& cfg = loaded.config;
  RaiseOpenFileLimit();
  log::Level level;
  if (log::ParseLevel(cfg.run.log_level, &level)) log::SetLevel(level);
  log::Logger logger("run");

  auto opened = OpenShardFor(loaded, flags, logger);
  if (!opened.ok()) return FailRun("run", opened.status());
  pipeline::OpenedShard& shard = *opened;
  const pipeline::PreparedRun& run = shard.run;
  // run.concurrency auto: slots, copies and threads for what the node can hold.
  pipeline::NodeBound bound;
  const config::Config sized = SizedForNode(cfg, run, bound, logger);

  // The workspaces: sandbox check, working copies, tools.
  std::optional<sandbox::SlotUidLease> uid_lease;
  auto env = WorkspaceFor(sized, run.run_dir, uid_lease, logger);
  if (!env.ok()) return FailRun("run", env.status());
  if (Status ok = CheckSandbox(*env, logger); !ok.ok()) {
    std::cerr << "seragen run: the bubblewrap sandbox does not work on this machine: " << ok.message()
              << "\n(set sandbox.mode: none to run agent commands unconfined, at your own risk)\n";
    return RunResult::kRuntimeError;
  }
  pipeline::RunWorkspaceFactory workspaces(run.repos, &run.tool_resources, *env);
  // Before any model call: every environment builds and passes its check.
  if (Status ready = CheckEnvironmentsBeforeRun(cfg, loaded.source_path, shard.tasks, workspaces, env->env_log_dir);
      !ready.ok()) {
    std::cerr << "seragen run: " << ready.message() << "\n";
    return RunResult::kConfigStop;
  }

  auto demos =
      pipeline::LoadRunDemos(DemoSourceOptionsFrom(cfg), static_cast<std::size_t>(cfg.issue.demos.max_commits), run);
  if (!demos.ok()) return FailRun("run", demos.status().WithContext("issue.demos"));
  auto messages = agent::AgentMessages::Load(run.prompts_dir + "/format_errors");
  if (!messages.ok()) return FailRun("run", messages.status());

  // The model client.
  std::string model;
  auto copts = ChatOptionsFor(cfg, model, logger);
  if (!copts.ok()) return FailRun("run", copts.status());
  loop::EventLoop http_loop;
  auto curl = std::make_unique<http::CurlClient>(http_loop, CurlOptionsFrom(cfg));
  const std::vector<llm::EndpointOptions> chat_endpoints = copts->endpoints;
  auto chat = std::make_unique<llm::HttpChatClient>(*curl, http_loop, SystemClock(), std::move(*copts));

  Status reachable = WaitForAnEndpoint(*chat, cfg.llm.startup_wait_s, logger);
  if (!reachable.ok()) return FailRun("run", reachable);
  loop::EventLoop pipeline_loop;

  pipeline::ShardRunInputs in;
  in.context.prompts = &run.prompts;
  in.context.demos = &*demos;
  in.context.messages = &*messages;
  in.context.chat = chat.get();
  in.context.workspaces = &workspaces;
  in.journal = shard.journal.get();
  in.folded = std::move(shard.folded);
  in.run_dir = run.run_dir;
  in.shard_dir = shard.shard_dir;
  in.shard = shard.shard;
  in.tasks = std::move(shard.tasks);
  in.context.settings = StageSettingsFrom(cfg, model);
  in.scheduler = TaskSchedulerOptionsFrom(sized);
  in.worker_threads = WorkerThreadsFrom(sized);
  journal::ConcurrencyRecord tasks_at_once = FixedConcurrencyRecord(static_cast<int>(sized.run.concurrency));
  // The servers' published load (auto only); before `chat` at the end, like it.
  auto poller = std::make_unique<llm::ServerLoadPoller>(*curl, SystemClock(), chat_endpoints);
  if (cfg.run.concurrency == 0) SteerConcurrency(in, bound, *chat, *poller, tasks_at_once);
  pipeline::EnvHealthTally env_health;
  in.context.env_health = &env_health;
  auto env_failing = [&env_health, share = cfg.run.max_env_broken_share] {
    return env_health.Exceeded(share, kEnvHealthMinRollouts);
  };

  ProgressDisplay progress(cfg.run.progress, &logger, std::chrono::duration<double>(cfg.run.grace_period_s).count());
  pipeline::ShardOutcome outcome;
  {
    StopSignals signals;
    pipeline::ShardRunHooks hooks;
    hooks.stop_requested = [&signals, &env_failing] { return signals.requested() || env_failing(); };
    double occupancy_saved_s = 0;  // occupancy.json for `status`, every 10 s and at the end
    hooks.on_tick = [&, shard_dir = shard.shard_dir](const pipeline::RunSummary& s, double elapsed_s) {
      progress.OnTick(s, elapsed_s, signals.requested(), FixSetupNote(workspaces.FailedSetups()));
      if (elapsed_s - occupancy_saved_s < 10) return;
      occupancy_saved_s = elapsed_s;
      SaveOccupancy(*chat, tasks_at_once, shard_dir);
    };
    hooks.tick_interval = std::chrono::milliseconds(progress.live() ? 500 : 1000);
    outcome = pipeline::RunShard(pipeline_loop, std::move(in), hooks);
    progress.Finish();
    SaveOccupancy(*chat, tasks_at_once, shard.shard_dir);
  }
  // Before the pipeline loop: completions of abandoned calls are posted to it.
  poller.reset();
  chat.reset();
  curl.reset();
  logger.Info("shard {}/{} finished: {}", shard.shard.index, shard.shard.count,
              FinalLine(outcome.summary, outcome.seconds));
  if (env_failing()) return ReportEnvStop(env_health, cfg, loaded.source_path);
  ReportOutcome(outcome, shard.shard, workspaces.FailedSetups());
  return outcome.result;
}

namespace {

std::string FormatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

int CheckFailed(const Status& s, int code) {
  std::cerr << "seragen env check: " << WithoutStatusCodeNames(s.message()) << "\n";
  return code;
}

void PrintCheck(const pipeline::RunWorkspaceFactory::CheckOutcome& c, const std::string& command) {
  const sandbox::SandboxOptions& sb = c.sandbox;
  std::cout << "root: "
            << (sb.rootfs.empty() ? "host /usr /bin /sbin /lib* /etc, without /etc secrets (read-only)"
                                  : sb.rootfs + " (read-only)")
            << "\n";
  if (c.root_id.rfind("image:", 0) == 0) std::cout << "image: sha256:" << c.root_id.substr(6) << "\n";
  // The image's words and its command's output: escaped before they reach the terminal.
  if (!c.system.empty()) std::cout << "system: " << TerminalLine(c.system) << "\n";
  std::cout << "working copy: " << sb.mount_point << " (writable); /tmp: private tmpfs (writable)\n";
  for (const auto& p : sb.extra_ro_binds) std::cout << "mount: " << p << " (read-only)\n";
  for (const auto& b : sb.binds) {
    std::cout << "mount: " << b.inside << " <- " << b.host << (b.writable ? " (writable)" : " (read-only)") << "\n";
  }
  std::cout << "network: none\n";
  for (const auto& [k, v] : sb.env.empty() ? sandbox::DefaultSandboxEnv() : sb.env) {
    std::cout << "env: " << k << "=" << v << "\n";
  }
  std::cout << "check: " << TerminalLine(command) << "\n";
  std::cout << "$ " << TerminalLine(command) << "\n" << TerminalSafe(c.result.output, c.result.output.size());
  if (c.result.truncated()) {
    std::cout << "\n[... output truncated ...]\n" << TerminalSafe(c.result.output_tail, c.result.output_tail.size());
  }
  if (!c.result.output.empty() && c.result.output.back() != '\n') std::cout << "\n";
  std::cout << "exit status: " << c.result.exit_code << (c.result.timed_out ? " (timed out)" : "") << "\n";
  std::cout << "environment: " << (c.prepared_from_cache ? "reused from the cache" : "prepared") << " in "
            << FormatSeconds(c.prepare_seconds) << "; check ran in " << FormatSeconds(c.check_seconds) << "\n";
}

}  // namespace

int EnvCheckCommand(const config::LoadedConfig& loaded, const std::string& repo_name) {
  const config::Config& cfg = loaded.config;
  log::Logger logger("env");
  const config::RepoConfig* rc = repo_name.empty() ? &cfg.repos.front() : nullptr;
  for (const auto& r : cfg.repos) {
    if (r.name == repo_name) rc = &r;
  }
  if (rc == nullptr) {
    std::cerr << "seragen env check: no repository named '" << repo_name << "' in repos\n";
    return kExitUsage;
  }
  const config::EnvironmentConfig& ec = EffectiveEnvironment(cfg, *rc);
  if (ec.check.empty()) {
    std::cerr << "seragen env check: environment.check is not set for repository '" << rc->name << "'\n";
    return kExitUsage;
  }
  const std::string run_dir = cfg.run.dir;
  auto repo = repo::Repository::OpenOrClone(rc->source, journal::RepoCacheDir(run_dir));
  if (!repo.ok()) return CheckFailed(repo.status().WithContext("repos." + rc->name), kExitUsage);
  auto commit = repo->ResolveCommit(rc->ref);
  if (!commit.ok()) return CheckFailed(commit.status(), kExitUsage);
  std::optional<sandbox::SlotUidLease> uid_lease;
  auto env = WorkspaceFor(cfg, run_dir, uid_lease, logger);
  if (!env.ok()) return CheckFailed(env.status(), kExitRuntimeFailure);
  std::map<std::string, std::shared_ptr<repo::Repository>> repos;
  repos[rc->name] = std::make_shared<repo::Repository>(std::move(*repo));
  pipeline::RunWorkspaceFactory factory(repos, nullptr, *env);
  callgraph::PlannedTask task;
  task.task_id = "env-check";
  task.repo = rc->name;
  task.commit = *commit;
  auto outcome = factory.RunCheck(task, 0, ec.check);
  if (!outcome.ok()) {
    std::cerr << "seragen env check: " << WithoutStatusCodeNames(outcome.status().message()) << "\n";
    return kExitRuntimeFailure;
  }
  PrintCheck(*outcome, ec.check);
  return outcome->result.exit_code == 0 ? kExitOk : kExitRuntimeFailure;
}

}  // namespace seragen::cli
