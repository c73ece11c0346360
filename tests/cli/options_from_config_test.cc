// Every config key a module option is built from lands in that option: the
// config below sets each of them to a value that is neither its default nor
// any other key's value, so a key wired to the wrong option fails here.
#include "cli/options_from_config.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <limits>

#include "seragen/config/loader.h"

namespace seragen::cli {
namespace {

using std::chrono::milliseconds;

const char* kYaml = R"(
run: {seed: 42, concurrency: 11, grace_period_s: 4.5}
repos: [{source: /srv/repos/core}]
llm:
  model: m-1
  api_key: ${SERAGEN_OPTIONS_TEST_DEFAULT_KEY}
  endpoints:
    - base_url: http://10.0.0.1:8000/v1
      api_key: ${SERAGEN_OPTIONS_TEST_KEY}
      max_concurrency: 3
      headers: {X-Gateway: literal-token}
    - base_url: http://10.0.0.2:8000/v1
  temperature: 0.3
  top_p: 0.9
  max_tokens: 999
  send_seed: false
  stream: true
  tool_choice: required
  reasoning_field: none
  max_tokens_field: max_completion_tokens
  sampling_fields: omit
  parallel_tool_calls: "true"
  config_error_limit: 7
  max_response_bytes: 777777
  request_timeout_s: 42.25
  connect_timeout_s: 3.5
  startup_wait_s: 8
  max_concurrency: 21
  max_concurrency_per_endpoint: 13
  extra_body: {top_k: 20}
  retry: {max_attempts: 6, initial_backoff_s: 0.25, max_backoff_s: 12, retry_after_cap_s: 45, total_budget_s: 601}
  health: {probe_interval_s: 2.5, eject_after_failures: 4}
  pricing: {prompt_per_mtok: 1.25, completion_per_mtok: 2.5, cached_per_mtok: 0.125}
agent:
  max_steps: 17
  max_model_calls: 19
  max_command_seconds: 33.5
  max_format_errors: 4
  wall_clock_s: 99.5
  command_timeout_s: 7.5
  max_consecutive_timeouts: 5
  max_tokens: 7777
  max_cost_usd: 1.75
  submit_review: false
  max_patch_bytes: 123456
  max_trajectory_bytes: 100000
  max_answer_bytes: 55555
tools: {output_cap_chars: 3333}
sandbox:
  mode: none
  mount_point: /work
  rootfs: /srv/rootfs
  cpu_seconds: 44
  memory_mb: 555
  max_processes: 66
  max_file_mb: 77
  uid_base: 30000
  uid_lock_dir: /var/lock/seragen-test
  max_copy_mb: 9
workcopies: {max_per_repo: 6}
issue:
  temperature: 0.2
  max_tokens: 321
  max_attempts: 4
  max_bytes: 4444
  demos: {source: auto, file: /srv/demos.jsonl, repo: org/proj, min_commits: 8, max_commits: 77}
judge: {enabled: false, max_tokens: 12, max_attempts: 5}
verify: {threshold: 0.75, rule: structural}
budget: {max_tasks: 5, max_tokens: 6000, max_cost_usd: 2.25}
)";

config::Config Load(const std::string& extra_overrides = "") {
  config::LoadOptions opts;
  if (!extra_overrides.empty()) opts.overrides = {extra_overrides};
  auto loaded = config::LoadConfigText(kYaml, "/etc/seragen/options.yaml", opts);
  INFO(loaded.status().ToString());
  REQUIRE(loaded.ok());
  return loaded->config;
}

void CheckRunLimits(const sandbox::RunLimits& l) {
  CHECK(l.timeout == milliseconds(7500));
  CHECK(l.output_cap_chars == 3333);
  CHECK(l.resources.cpu_seconds == 44);
  CHECK(l.resources.memory_mb == 555);
  CHECK(l.resources.max_processes == 66);
  CHECK(l.resources.max_file_mb == 77);
}

}  // namespace

TEST_CASE("sandbox options: mount point, rootfs and command limits", "[cli][options]") {
  config::Config cfg = Load();
  CheckRunLimits(RunLimitsFrom(cfg));
  sandbox::SandboxOptions s = SandboxOptionsFrom(cfg);
  CHECK(s.mount_point == "/work");
  CHECK(s.rootfs == "/srv/rootfs");
  CheckRunLimits(s.limits);
  CHECK(s.hidden_paths.empty());  // per run, set by the composition root
}

TEST_CASE("tool options: bash limits, copy size, timeouts, review", "[cli][options]") {
  tools::ToolOptions t = ToolOptionsFrom(Load());
  CheckRunLimits(t.bash_limits);
  CHECK(t.max_copy_bytes == 9ull << 20);
  CHECK(t.max_consecutive_timeouts == 5);
  CHECK_FALSE(t.submit_review);
}

TEST_CASE("workspace options: mode, uids, patch size, pool capacity", "[cli][options]") {
  pipeline::WorkspaceOptions e = WorkspaceOptionsFrom(Load());
  CHECK(e.sandbox_mode == "none");
  CHECK(e.uid_base == 30000);
  CHECK(e.max_patch_bytes == 123456);
  CHECK(e.pool.capacity == 6);
  CHECK(e.sandbox.mount_point == "/work");
  CHECK(e.tools.max_consecutive_timeouts == 5);
  CHECK(e.pool.pool_dir.empty());  // chosen at run time
  // Without workcopies.max_per_repo one copy per task slot.
  CHECK(WorkspaceOptionsFrom(Load("workcopies.max_per_repo=0")).pool.capacity == 11);
}

TEST_CASE("demonstration source options: source, file, its repo filter, commits needed", "[cli][options]") {
  demos::DemoSourceOptions d = DemoSourceOptionsFrom(Load());
  CHECK(d.source == "auto");
  CHECK(d.file == "/srv/demos.jsonl");
  CHECK(d.repo_filter == "org/proj");
  CHECK(d.min_commits == 8);
}

TEST_CASE("slot uid options: lock dir, base, one uid per slot", "[cli][options]") {
  sandbox::SlotUidOptions u = SlotUidOptionsFrom(Load());
  CHECK(u.lock_dir == "/var/lock/seragen-test");
  CHECK(u.uid_base == 30000);
  CHECK(u.slots == 11);
  CHECK(u.max_candidates == 11 + 4096);
}

TEST_CASE("endpoint pool and retry options", "[cli][options]") {
  config::Config cfg = Load();
  llm::EndpointPoolOptions p = EndpointPoolOptionsFrom(cfg);
  CHECK(p.max_concurrency == 21);
  CHECK(p.eject_after_failures == 4);
  CHECK(p.probe_interval == milliseconds(2500));
  llm::RetryPolicyOptions r = RetryOptionsFrom(cfg);
  CHECK(r.max_attempts == 6);
  CHECK(r.base_delay == milliseconds(250));
  CHECK(r.max_delay == milliseconds(12000));
  CHECK(r.max_retry_after == milliseconds(45000));
  CHECK(r.total_backoff_budget == milliseconds(601000));
}

TEST_CASE("chat client options: endpoints with keys, headers and concurrency", "[cli][options]") {
  ::setenv("SERAGEN_OPTIONS_TEST_KEY", "endpoint-key", 1);
  ::setenv("SERAGEN_OPTIONS_TEST_DEFAULT_KEY", "default-key", 1);
  config::Config cfg = Load();
  auto c = ChatClientOptionsFrom(cfg);
  INFO(c.status().ToString());
  REQUIRE(c.ok());
  REQUIRE(c->endpoints.size() == 2);
  CHECK(c->endpoints[0].base_url == "http://10.0.0.1:8000/v1");
  CHECK(c->endpoints[0].api_key.reveal() == "endpoint-key");
  CHECK(c->endpoints[0].max_concurrency == 3);
  REQUIRE(c->endpoints[0].headers.size() == 1);
  CHECK(c->endpoints[0].headers[0].first == "X-Gateway");
  CHECK(c->endpoints[0].headers[0].second.reveal() == "literal-token");
  CHECK(c->endpoints[1].api_key.reveal() == "default-key");  // llm.api_key
  CHECK(c->endpoints[1].max_concurrency == 13);              // llm.max_concurrency_per_endpoint
  CHECK(c->pool.max_concurrency == 21);
  CHECK(c->retry.max_attempts == 6);
  CHECK(c->config_error_limit == 7);
  CHECK(c->max_response_bytes == 777777);
  CHECK(c->connect_timeout == std::chrono::milliseconds(3500));
  CHECK(c->jitter_seed == (42ULL ^ 0x5eedULL));

  ::unsetenv("SERAGEN_OPTIONS_TEST_KEY");
  auto missing = ChatClientOptionsFrom(cfg);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("SERAGEN_OPTIONS_TEST_KEY") != std::string::npos);
  CHECK(missing.status().message().find("llm.endpoints") != std::string::npos);
  ::unsetenv("SERAGEN_OPTIONS_TEST_DEFAULT_KEY");
}

TEST_CASE("ping and connection options", "[cli][options]") {
  config::Config cfg = Load();
  llm::PingOptions ping = PingOptionsFrom(cfg);
  CHECK(ping.base_url == "http://10.0.0.1:8000/v1");
  CHECK(ping.api_key_env == "SERAGEN_OPTIONS_TEST_KEY");
  REQUIRE(ping.headers.size() == 1);
  CHECK(ping.headers[0].name == "X-Gateway");
  http::CurlClientOptions curl = CurlOptionsFrom(cfg);
  CHECK(curl.max_total_connections == 21);
  CHECK(curl.max_host_connections == 13);
}

TEST_CASE("request overrides: explicit settings win, auto leaves the profile's", "[cli][options]") {
  auto o = RequestOverridesOf(Load().llm);
  REQUIRE(o.ok());
  CHECK(o->max_tokens_field == llm::WireOptions::MaxTokensField::kMaxCompletionTokens);
  CHECK(o->send_sampling == false);
  CHECK(o->parallel_tool_calls == llm::WireOptions::ParallelToolCalls::kTrue);
  CHECK(o->reasoning_field == llm::WireOptions::ReasoningField::kOmit);  // "none"
  config::LlmConfig automatic;
  auto a = RequestOverridesOf(automatic);
  REQUIRE(a.ok());
  CHECK_FALSE(a->max_tokens_field.has_value());
  CHECK_FALSE(a->send_sampling.has_value());
  CHECK_FALSE(a->parallel_tool_calls.has_value());
  CHECK_FALSE(a->reasoning_field.has_value());
}

TEST_CASE("agent limits, pricing and call options", "[cli][options]") {
  config::Config cfg = Load();
  agent::RolloutLimits l = AgentLimitsFrom(cfg);
  CHECK(l.max_steps == 17);
  CHECK(l.max_model_calls == 19);
  CHECK(l.max_command_time == milliseconds(33500));
  CHECK(l.max_format_errors == 4);
  CHECK(l.wall_clock == milliseconds(99500));
  CHECK(l.max_consecutive_timeouts == 5);
  CHECK(l.max_tokens == 7777);
  CHECK(l.max_cost_usd == 1.75);
  CHECK(l.max_trajectory_bytes == 100000);
  CHECK(l.max_answer_bytes == 55555);
  // 64-bit config integers saturate in int options instead of wrapping.
  CHECK(AgentLimitsFrom(Load("agent.max_steps=5000000000")).max_steps == std::numeric_limits<int>::max());
  llm::CallOptions call = CallOptionsFrom(cfg);
  CHECK(call.attempt_timeout == milliseconds(42250));
  CHECK(call.deadline == milliseconds(99500));  // the rollout's wall clock bounds one call
  CHECK(call.stream);
}

TEST_CASE("stage settings: request template, issue, judge, verification", "[cli][options]") {
  pipeline::StageSettings s = StageSettingsFrom(Load(), "served-model");
  CHECK(s.run_seed == 42);
  CHECK(s.request_template.model == "served-model");
  CHECK(s.request_template.sampling.temperature == 0.3);
  CHECK(s.request_template.sampling.top_p == 0.9);
  CHECK(s.request_template.max_tokens == 999);
  CHECK(s.request_template.tool_choice.mode == llm::ToolChoice::Mode::kRequired);
  CHECK(s.request_template.extra_body_json == R"({"top_k":20})");
  CHECK(s.call_options.attempt_timeout == milliseconds(42250));
  CHECK_FALSE(s.send_seed);
  CHECK(s.limits.max_steps == 17);
  CHECK(s.prices.run.completion_per_mtok == 2.5);
  CHECK(s.prices.run.cached_per_mtok == 0.125);
  CHECK(s.issue_temperature == 0.2);
  CHECK(s.issue_max_tokens == 321);
  CHECK(s.issue_max_attempts == 4);
  CHECK(s.issue_max_bytes == 4444);
  CHECK_FALSE(s.judge_enabled);
  CHECK(s.judge_max_tokens == 12);
  CHECK(s.judge_max_attempts == 5);
  CHECK(s.verify_threshold == 0.75);
  CHECK(s.verify_rule == verify::VerifyRule::kStructural);
  // An empty extra_body sends nothing; tool_choice auto is sent as auto.
  pipeline::StageSettings d = StageSettingsFrom(Load("llm.tool_choice=auto"), "m");
  CHECK(d.request_template.tool_choice.mode == llm::ToolChoice::Mode::kAuto);
  config::Config plain = Load();
  plain.llm.extra_body = "{}";
  CHECK(StageSettingsFrom(plain, "m").request_template.extra_body_json.empty());
  // llm.max_tokens 0 sends no completion cap; judge.max_tokens 0 takes the issue writer's budget.
  config::Config unset = Load();
  unset.llm.max_tokens = 0;
  unset.judge.max_tokens = 0;
  pipeline::StageSettings u = StageSettingsFrom(unset, "m");
  CHECK_FALSE(u.request_template.max_tokens.has_value());
  CHECK(u.judge_max_tokens == 321);
}

TEST_CASE("scheduler options: slots, budgets, grace, worker threads", "[cli][options]") {
  config::Config cfg = Load();
  pipeline::TaskSchedulerOptions s = TaskSchedulerOptionsFrom(cfg);
  CHECK(s.concurrency == 11);
  CHECK(s.budget.max_tasks == 5);
  CHECK(s.budget.max_tokens == 6000);
  CHECK(s.budget.max_cost_usd == 2.25);
  CHECK(s.prices.run.prompt_per_mtok == 1.25);
  CHECK(s.grace == milliseconds(4500));
  CHECK(WorkerThreadsFrom(cfg) == 13);
  CHECK(WorkerThreadsFrom(Load("run.concurrency=5000")) == 514);
  // auto, where nothing tunes it (eval, env check): a fixed 8.
  config::Config automatic = Load("run.concurrency=auto");
  CHECK(FixedConcurrency(automatic) == kAutoConcurrencyFallback);
  CHECK(TaskSchedulerOptionsFrom(automatic).concurrency == 8);
  CHECK(WorkerThreadsFrom(automatic) == 10);
}

TEST_CASE("environment specs: run-wide default, a repository's own section replaces it", "[cli][options]") {
  config::Config cfg = Load();
  cfg.repos.resize(2);
  cfg.repos[0].name = "a";
  cfg.repos[1].name = "b";
  cfg.environment.setup = {"make deps"};
  cfg.environment.env = {{"PATH", "/env/bin:/usr/bin:/bin"}};
  cfg.environment.cache_dir = "/c";
  cfg.repos[1].environment.setup = {"npm ci"};
  cfg.repos[1].environment.prefix = "/opt";
  env::EnvironmentSpec a = EnvironmentSpecFrom(cfg, cfg.repos[0]);
  CHECK(a.setup == std::vector<std::string>{"make deps"});
  CHECK(a.env.at("PATH") == "/env/bin:/usr/bin:/bin");
  CHECK(a.cache_dir == "/c");
  CHECK(a.rootfs == "/srv/rootfs");  // sandbox.rootfs when the environment names no root
  env::EnvironmentSpec b = EnvironmentSpecFrom(cfg, cfg.repos[1]);
  CHECK(b.setup == std::vector<std::string>{"npm ci"});
  CHECK(b.prefix == "/opt");
  CHECK(b.env.empty());  // whole-section replacement: nothing inherited
  CHECK(b.cache_dir == env::DefaultEnvironmentCacheDir());
  pipeline::WorkspaceOptions e = WorkspaceOptionsFrom(cfg);
  CHECK(e.environments.size() == 2);
}

}  // namespace seragen::cli

namespace seragen::cli {

TEST_CASE("test commands follow the environment merge rule and are kept only when set", "[cli][options]") {
  config::Config cfg = Load();
  cfg.repos.resize(3);
  cfg.repos[0].name = "a";
  cfg.repos[1].name = "b";
  cfg.repos[2].name = "c";
  cfg.environment.test_command = "python -m pytest -q";
  cfg.repos[1].environment.test_command = "npm test";
  cfg.repos[2].environment.setup = {"true"};  // its own section, without a test command
  pipeline::WorkspaceOptions e = WorkspaceOptionsFrom(cfg);
  CHECK(e.test_commands == std::map<std::string, std::string>{{"a", "python -m pytest -q"}, {"b", "npm test"}});
  CHECK(e.environments.count("a") == 0);  // a test command alone prepares nothing
}

}  // namespace seragen::cli
