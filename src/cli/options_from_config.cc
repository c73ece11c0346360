#include "cli/options_from_config.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "seragen/config/prices.h"
#include "seragen/llm/endpoint_options.h"
#include "seragen/verify/scores.h"

namespace seragen::cli {
namespace {

// Config integers are 64-bit; most option fields are int or size_t. The
// schema bounds most keys; the rest saturate instead of wrapping.
int IntOf(std::int64_t v) {
  return static_cast<int>(
      std::clamp<std::int64_t>(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}
std::size_t SizeOf(std::int64_t v) { return v < 0 ? 0 : static_cast<std::size_t>(v); }

}  // namespace

sandbox::RunLimits RunLimitsFrom(const config::Config& cfg) {
  sandbox::RunLimits limits;
  limits.timeout = cfg.agent.command_timeout_s;
  limits.output_cap_chars = SizeOf(cfg.tools.output_cap_chars);
  limits.resources.cpu_seconds = static_cast<int>(cfg.sandbox.cpu_seconds);  // whole seconds (RLIMIT_CPU), >= 1
  limits.resources.memory_mb = cfg.sandbox.memory_mb;
  limits.resources.max_processes = IntOf(cfg.sandbox.max_processes);
  limits.resources.max_file_mb = cfg.sandbox.max_file_mb;
  return limits;
}

sandbox::SandboxOptions SandboxOptionsFrom(const config::Config& cfg) {
  sandbox::SandboxOptions opts;
  opts.mount_point = cfg.sandbox.mount_point;
  opts.rootfs = cfg.sandbox.rootfs;
  opts.extra_ro_binds = cfg.sandbox.extra_ro_paths;
  opts.limits = RunLimitsFrom(cfg);
  return opts;
}

tools::ToolOptions ToolOptionsFrom(const config::Config& cfg) {
  tools::ToolOptions opts;
  opts.bash_limits = RunLimitsFrom(cfg);
  opts.max_copy_bytes = static_cast<std::uint64_t>(cfg.sandbox.max_copy_mb) << 20;
  opts.max_consecutive_timeouts = IntOf(cfg.agent.max_consecutive_timeouts);
  opts.submit_review = cfg.agent.submit_review;
  opts.view_max_lines = static_cast<std::size_t>(cfg.tools.view_max_lines);
  return opts;
}

const config::EnvironmentConfig& EffectiveEnvironment(const config::Config& cfg, const config::RepoConfig& repo) {
  return repo.environment == config::EnvironmentConfig{} ? cfg.environment : repo.environment;
}

env::EnvironmentSpec EnvironmentSpecFrom(const config::Config& cfg, const config::RepoConfig& repo) {
  const config::EnvironmentConfig& e = EffectiveEnvironment(cfg, repo);
  env::EnvironmentSpec spec;
  spec.image = e.image;
  spec.rootfs = e.rootfs.empty() && e.image.empty() ? cfg.sandbox.rootfs : e.rootfs;
  spec.setup = e.setup;
  spec.setup_network = e.setup_network;
  spec.env = e.env;
  spec.prefix = e.prefix;
  spec.cache_dir = e.cache_dir.empty() ? env::DefaultEnvironmentCacheDir() : e.cache_dir;
  spec.image_max_bytes = static_cast<std::uint64_t>(cfg.sandbox.image_max_mb) << 20;
  spec.image_max_files = static_cast<std::uint64_t>(cfg.sandbox.image_max_files);
  return spec;
}

pipeline::WorkspaceOptions WorkspaceOptionsFrom(const config::Config& cfg) {
  pipeline::WorkspaceOptions env;
  env.sandbox_mode = cfg.sandbox.mode;
  env.sandbox = SandboxOptionsFrom(cfg);
  env.uid_base = static_cast<uid_t>(cfg.sandbox.uid_base);
  env.tools = ToolOptionsFrom(cfg);
  env.max_patch_bytes = SizeOf(cfg.agent.max_patch_bytes);
  env.pool.capacity = SizeOf(cfg.workcopies.max_per_repo > 0 ? cfg.workcopies.max_per_repo : FixedConcurrency(cfg));
  for (const config::RepoConfig& repo : cfg.repos) {
    env::EnvironmentSpec spec = EnvironmentSpecFrom(cfg, repo);
    if (!spec.image.empty() || !spec.setup.empty() || !spec.env.empty() || spec.rootfs != cfg.sandbox.rootfs) {
      env.environments[repo.name] = std::move(spec);
    }
    const std::string& test_command = EffectiveEnvironment(cfg, repo).test_command;
    if (!test_command.empty()) env.test_commands[repo.name] = test_command;
  }
  return env;
}

demos::DemoSourceOptions DemoSourceOptionsFrom(const config::Config& cfg) {
  const config::DemoIssueConfig& d = cfg.issue.demos;
  demos::DemoSourceOptions o;
  o.source = d.source;
  o.file = d.file;
  o.repo_filter = d.repo;
  o.min_commits = static_cast<std::size_t>(d.min_commits);
  return o;
}

sandbox::SlotUidOptions SlotUidOptionsFrom(const config::Config& cfg) {
  sandbox::SlotUidOptions opts;
  opts.lock_dir = cfg.sandbox.uid_lock_dir;
  opts.uid_base = static_cast<uid_t>(cfg.sandbox.uid_base);
  opts.slots = IntOf(std::min<std::int64_t>(FixedConcurrency(cfg), 1 << 20));
  opts.max_candidates = opts.slots + 4096;
  return opts;
}

llm::EndpointPoolOptions EndpointPoolOptionsFrom(const config::Config& cfg) {
  llm::EndpointPoolOptions pool;
  pool.max_concurrency = IntOf(cfg.llm.max_concurrency);
  pool.eject_after_failures = IntOf(cfg.llm.health.eject_after_failures);
  pool.probe_interval = cfg.llm.health.probe_interval_s;
  return pool;
}

llm::RetryPolicyOptions RetryOptionsFrom(const config::Config& cfg) {
  llm::RetryPolicyOptions retry;
  retry.max_attempts = IntOf(cfg.llm.retry.max_attempts);
  retry.base_delay = cfg.llm.retry.initial_backoff_s;
  retry.max_delay = cfg.llm.retry.max_backoff_s;
  retry.max_retry_after = cfg.llm.retry.retry_after_cap_s;
  retry.total_backoff_budget = cfg.llm.retry.total_budget_s;
  return retry;
}

Result<llm::ChatClientOptions> ChatClientOptionsFrom(const config::Config& cfg) {
  llm::ChatClientOptions copts;
  for (const config::EndpointConfig& e : cfg.llm.endpoints) {
    const config::SecretRef& key = e.api_key.empty() ? cfg.llm.api_key : e.api_key;
    auto eo = llm::MakeEndpointOptions(e.base_url, key.env_var);
    if (!eo.ok()) return eo.status().WithContext("llm.endpoints");
    std::vector<llm::HeaderSpec> specs;
    for (const config::HeaderConfig& h : e.headers) specs.push_back({h.name, h.value});
    auto headers = llm::ResolveHeaders(specs);
    if (!headers.ok()) return headers.status().WithContext("llm.endpoints[].headers");
    eo->headers = std::move(*headers);
    eo->max_concurrency = IntOf(e.max_concurrency > 0 ? e.max_concurrency : cfg.llm.max_concurrency_per_endpoint);
    copts.endpoints.push_back(std::move(*eo));
  }
  copts.pool = EndpointPoolOptionsFrom(cfg);
  copts.retry = RetryOptionsFrom(cfg);
  copts.config_error_limit = IntOf(cfg.llm.config_error_limit);
  copts.max_response_bytes = SizeOf(cfg.llm.max_response_bytes);
  copts.connect_timeout = cfg.llm.connect_timeout_s;
  copts.jitter_seed = static_cast<std::uint64_t>(cfg.run.seed) ^ 0x5eedULL;
  return copts;
}

llm::PingOptions PingOptionsFrom(const config::Config& cfg, std::size_t endpoint) {
  llm::PingOptions ping;
  if (endpoint >= cfg.llm.endpoints.size()) return ping;  // the schema requires one
  const config::EndpointConfig& ep = cfg.llm.endpoints[endpoint];
  ping.base_url = ep.base_url;
  ping.api_key_env = (ep.api_key.empty() ? cfg.llm.api_key : ep.api_key).env_var;
  for (const config::HeaderConfig& h : ep.headers) ping.headers.push_back({h.name, h.value});
  return ping;
}

http::CurlClientOptions CurlOptionsFrom(const config::Config& cfg) {
  http::CurlClientOptions curl;
  curl.max_total_connections = cfg.llm.max_concurrency;
  curl.max_host_connections = cfg.llm.max_concurrency_per_endpoint;
  return curl;
}

Result<llm::RequestOverrides> RequestOverridesOf(const config::LlmConfig& l) {
  llm::RequestOverrides o;
  if (l.max_tokens_field != "auto") {
    SG_ASSIGN_OR_RETURN(auto f, llm::ParseMaxTokensField(l.max_tokens_field));
    o.max_tokens_field = f;
  }
  if (l.sampling_fields != "auto") o.send_sampling = l.sampling_fields == "send";
  if (l.parallel_tool_calls != "auto") {
    SG_ASSIGN_OR_RETURN(auto p, llm::ParseParallelToolCalls(l.parallel_tool_calls));
    o.parallel_tool_calls = p;
  }
  if (l.reasoning_field != "auto") {
    SG_ASSIGN_OR_RETURN(auto r, llm::ParseReasoningField(l.reasoning_field == "none" ? "omit" : l.reasoning_field));
    o.reasoning_field = r;
  }
  return o;
}

agent::RolloutLimits AgentLimitsFrom(const config::Config& cfg) {
  agent::RolloutLimits limits;
  limits.max_steps = IntOf(cfg.agent.max_steps);
  limits.max_model_calls = IntOf(cfg.agent.max_model_calls);
  limits.max_command_time = cfg.agent.max_command_seconds;
  limits.max_format_errors = IntOf(cfg.agent.max_format_errors);
  limits.wall_clock = cfg.agent.wall_clock_s;
  limits.max_consecutive_timeouts = IntOf(cfg.agent.max_consecutive_timeouts);
  limits.max_tokens = cfg.agent.max_tokens;
  limits.max_cost_usd = cfg.agent.max_cost_usd;
  limits.max_trajectory_bytes = cfg.agent.max_trajectory_bytes;
  limits.max_answer_bytes = cfg.agent.max_answer_bytes;
  return limits;
}

llm::CallOptions CallOptionsFrom(const config::Config& cfg) {
  llm::CallOptions call;
  call.attempt_timeout = cfg.llm.request_timeout_s;
  call.deadline = cfg.agent.wall_clock_s;
  call.stream = cfg.llm.stream;
  return call;
}

pipeline::StageSettings StageSettingsFrom(const config::Config& cfg, const std::string& model) {
  pipeline::StageSettings s;
  s.run_seed = static_cast<std::uint64_t>(cfg.run.seed);
  s.request_template.model = model;
  s.request_template.sampling.temperature = cfg.llm.temperature;
  s.request_template.sampling.top_p = cfg.llm.top_p;
  if (cfg.llm.max_tokens > 0) s.request_template.max_tokens = cfg.llm.max_tokens;
  s.request_template.tool_choice.mode =
      cfg.llm.tool_choice == "required" ? llm::ToolChoice::Mode::kRequired : llm::ToolChoice::Mode::kAuto;
  s.request_template.extra_body_json = cfg.llm.extra_body == "{}" ? "" : cfg.llm.extra_body;
  s.call_options = CallOptionsFrom(cfg);
  s.send_seed = cfg.llm.send_seed;
  s.limits = AgentLimitsFrom(cfg);
  s.prices = config::PricesOf(cfg.llm);
  s.issue_temperature = cfg.issue.temperature;
  s.issue_max_tokens = cfg.issue.max_tokens;
  s.issue_max_attempts = IntOf(cfg.issue.max_attempts);
  s.issue_max_bytes = SizeOf(cfg.issue.max_bytes);
  s.judge_enabled = cfg.judge.enabled;
  s.judge_temperature = cfg.judge.temperature;
  s.judge_max_tokens = cfg.judge.max_tokens > 0 ? cfg.judge.max_tokens : cfg.issue.max_tokens;
  s.judge_max_attempts = IntOf(cfg.judge.max_attempts);
  s.verify_threshold = cfg.verify.threshold;
  s.verify_rule = verify::VerifyRuleFromName(cfg.verify.rule).value_or(verify::VerifyRule::kSera);
  s.evidence.enabled = cfg.verify.test_evidence;
  s.evidence.timeout = std::chrono::duration_cast<std::chrono::seconds>(cfg.verify.test_timeout);
  return s;
}

std::int64_t FixedConcurrency(const config::Config& cfg) {
  return cfg.run.concurrency > 0 ? cfg.run.concurrency : kAutoConcurrencyFallback;
}

pipeline::TaskSchedulerOptions TaskSchedulerOptionsFrom(const config::Config& cfg) {
  pipeline::TaskSchedulerOptions sopts;
  sopts.concurrency = IntOf(FixedConcurrency(cfg));
  sopts.budget.max_tasks = cfg.budget.max_tasks;
  sopts.budget.max_tokens = cfg.budget.max_tokens;
  sopts.budget.max_cost_usd = cfg.budget.max_cost_usd;
  sopts.prices = config::PricesOf(cfg.llm);
  sopts.grace = cfg.run.grace_period_s;
  return sopts;
}

std::size_t WorkerThreadsFrom(const config::Config& cfg) {
  return SizeOf(std::min<std::int64_t>(FixedConcurrency(cfg), 512)) + 2;
}

}  // namespace seragen::cli
