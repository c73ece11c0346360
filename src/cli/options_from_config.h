// config::Config -> the option structs of each module. Pure functions of the
// config (ChatClientOptionsFrom also reads the environment variables that
// secrets name); the composition root (run_command.cc) adds what only exists
// at run time: directories, locked uids, the resolved model, callbacks.
#pragma once

#include <cstddef>
#include <string>

#include "seragen/agent/rollout.h"
#include "seragen/base/result.h"
#include "seragen/config/config.h"
#include "seragen/demos/demo_source.h"
#include "seragen/env/environment.h"
#include "seragen/http/curl_client.h"
#include "seragen/llm/commands.h"
#include "seragen/llm/http_chat_client.h"
#include "seragen/llm/server_profile.h"
#include "seragen/pipeline/run_workspace.h"
#include "seragen/pipeline/task_runner.h"
#include "seragen/pipeline/task_scheduler.h"
#include "seragen/sandbox/sandbox_options.h"
#include "seragen/sandbox/slot_uids.h"
#include "seragen/tools/tool_options.h"

namespace seragen::cli {

// Limits of one agent command: agent.command_timeout_s, tools.output_cap_chars, sandbox.* rlimits.
sandbox::RunLimits RunLimitsFrom(const config::Config& cfg);
// sandbox.mount_point, sandbox.rootfs and RunLimitsFrom. The uid and the
// hidden paths are per run/slot and set by the caller.
sandbox::SandboxOptions SandboxOptionsFrom(const config::Config& cfg);
// The environment a repository's rollouts get: its own section when it sets
// any key, else the run-wide one.
const config::EnvironmentConfig& EffectiveEnvironment(const config::Config& cfg, const config::RepoConfig& repo);
// The repository's environment: repos[].environment when it sets any key, else
// the run-wide environment; rootfs falls back to sandbox.rootfs; cache_dir to
// env::DefaultEnvironmentCacheDir().
env::EnvironmentSpec EnvironmentSpecFrom(const config::Config& cfg, const config::RepoConfig& repo);
// The agent's tools: bash limits, sandbox.max_copy_mb, agent.max_consecutive_timeouts, agent.submit_review.
tools::ToolOptions ToolOptionsFrom(const config::Config& cfg);
// sandbox.mode and uid_base, SandboxOptionsFrom, ToolOptionsFrom, agent.max_patch_bytes and the pool
// capacity (workcopies.max_per_repo, else run.concurrency). pool.pool_dir, slot uids and cgroups: caller.
pipeline::WorkspaceOptions WorkspaceOptionsFrom(const config::Config& cfg);
// issue.demos: source, file, repo (the file's filter) and min_commits;
// max_commits is the commit reader's (LoadRunDemos), not the policy's.
demos::DemoSourceOptions DemoSourceOptionsFrom(const config::Config& cfg);
// One uid per slot (run.concurrency, capped at 2^20) from sandbox.uid_base, locks in sandbox.uid_lock_dir.
sandbox::SlotUidOptions SlotUidOptionsFrom(const config::Config& cfg);

// llm.max_concurrency, llm.health.*.
llm::EndpointPoolOptions EndpointPoolOptionsFrom(const config::Config& cfg);
// llm.retry.*.
llm::RetryPolicyOptions RetryOptionsFrom(const config::Config& cfg);
// llm.endpoints (keys and header values read from the environment; an unset
// variable is an error naming it), EndpointPoolOptionsFrom, RetryOptionsFrom,
// llm.config_error_limit, and the back-off jitter seed from run.seed.
Result<llm::ChatClientOptions> ChatClientOptionsFrom(const config::Config& cfg);
// Endpoint `endpoint` (default the first), for listing its models: its URL,
// key variable (its own, else llm.api_key) and headers.
llm::PingOptions PingOptionsFrom(const config::Config& cfg, std::size_t endpoint = 0);
// Connections: llm.max_concurrency in total, llm.max_concurrency_per_endpoint per host.
http::CurlClientOptions CurlOptionsFrom(const config::Config& cfg);
// The request settings written explicitly in `llm` ("auto" = take the
// server profile's default). Errors name the bad value.
Result<llm::RequestOverrides> RequestOverridesOf(const config::LlmConfig& llm);

// agent.* limits of one rollout.
agent::RolloutLimits AgentLimitsFrom(const config::Config& cfg);
// Per-call settings: llm.request_timeout_s per attempt, agent.wall_clock_s for the whole call, llm.stream.
llm::CallOptions CallOptionsFrom(const config::Config& cfg);
// What every stage of a task uses: request template (with `model`), call
// options, limits, prices (llm.pricing, llm.endpoints[].pricing), issue.*, judge.*, verify.threshold, run.seed.
pipeline::StageSettings StageSettingsFrom(const config::Config& cfg, const std::string& model);
// run.concurrency with `auto` (0) read as kAutoConcurrencyFallback: what the
// helpers here size slots, copies and threads by. `seragen run` replaces
// auto by the node's bound first (auto_concurrency_setup.h); commands that do
// not tune it (eval, env check) run this many.
inline constexpr std::int64_t kAutoConcurrencyFallback = 8;
std::int64_t FixedConcurrency(const config::Config& cfg);
// run.concurrency, budget.*, prices (llm.pricing, llm.endpoints[].pricing), run.grace_period_s.
pipeline::TaskSchedulerOptions TaskSchedulerOptionsFrom(const config::Config& cfg);
// Threads for blocking work: one per task slot (at most 512) plus two.
std::size_t WorkerThreadsFrom(const config::Config& cfg);

}  // namespace seragen::cli
