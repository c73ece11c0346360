// The typed seragen configuration. Plain data: defaults are the member
// initialisers below; src/config/schema_def.cc binds every member to its YAML
// key, constraints and documentation (docs/CONFIG.md is generated from it).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "seragen/base/pricing.h"

namespace seragen::config {

// A span of time. Written in YAML as a number of seconds (the keys end in
// `_s`, e.g. `grace_period_s: 0.5`), held with millisecond resolution:
// seconds are rounded to the nearest millisecond when the config is loaded.
using Duration = std::chrono::milliseconds;

// A reference to a secret held in an environment variable, written `${NAME}`
// in YAML. Only the variable name is stored; the value is read at use time.
struct SecretRef {
  std::string env_var;  // empty = no secret configured
  bool empty() const { return env_var.empty(); }
  friend bool operator==(const SecretRef&, const SecretRef&) = default;
};

struct RunConfig {
  std::string name = "seragen";
  std::string dir = "runs/seragen";
  std::int64_t seed = 0;
  std::int64_t concurrency = 0;        // 0 = auto (pipeline/auto_concurrency.h)
  std::int64_t task_memory_mb = 1024;  // auto: memory one task may need
  std::int64_t task_disk_mb = 0;       // auto: disk one copy may need; 0 = twice the largest checkout
  std::string shard;                   // "K/N"; empty = Slurm array variables, else 0/1
  Duration grace_period_s{30'000};
  std::string log_level = "info";
  std::string progress = "auto";
  bool allow_config_change = false;
  // Stop the run (exit 2) once more than this share of its rollouts (after
  // the first 8) failed to import the repository's own code; 1 = never.
  double max_env_broken_share = 0.5;
};

// Where a repository's commands run and how it is prepared (docs/ENVIRONMENTS.md).
struct EnvironmentConfig {
  // The profile that wrote this section ("python", "node", "go", "rust";
  // env/profile.h), named in setup errors; "none" (`environment: none`)
  // for no environment at all; "" for a hand-written one.
  std::string profile;
  std::string image;   // OCI layout directory or docker/podman save archive
  std::string rootfs;  // existing root filesystem directory (exclusive with image)
  std::vector<std::string> setup;
  bool setup_network = false;
  std::map<std::string, std::string> env;
  std::string prefix = "/env";
  std::string check;
  std::string test_command;
  std::string cache_dir;  // "" = $XDG_CACHE_HOME/seragen/env (env::DefaultEnvironmentCacheDir)
  bool none() const { return profile == "none"; }
  friend bool operator==(const EnvironmentConfig&, const EnvironmentConfig&) = default;
};

struct RepoConfig {
  std::string name;
  std::string source;  // local path or clone URL
  std::string ref = "HEAD";
  std::int64_t max_file_bytes = 1 << 20;
  std::vector<std::string> skip = {"vendor/**", "third_party/**", "node_modules/", "*.min.js",
                                   "*_pb2.py",  "*.pb.go",        "*.generated.*"};
  // Used instead of the run-wide environment when any key is set here.
  EnvironmentConfig environment;
};

struct CategoryConfig {
  std::string mode = "sample";  // all | sample
  std::int64_t per_function = 1;
};

struct SelectionConfig {
  std::vector<std::string> languages = {"python", "javascript", "typescript", "go", "rust", "java", "c", "cpp"};
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  bool exclude_tests = true;
  // The same lists as callgraph::DefaultTestPathPatterns / DefaultAuxiliaryPatterns
  // (config cannot include callgraph; tests/pipeline/selection_defaults_test.cc keeps them equal).
  std::vector<std::string> test_patterns = {
      "test/**",    "tests/**",   "**/test/**",    "**/tests/**", "**/testing/**",  "**/__tests__/**", "**/spec/**",
      "test_*.py",  "*_test.py",  "conftest.py",   "*_test.go",   "*.test.js",      "*.test.jsx",      "*.test.ts",
      "*.test.tsx", "*.spec.js",  "*.spec.ts",     "*.spec.tsx",  "**/src/test/**", "*Test.java",      "*Tests.java",
      "*_test.cc",  "*_test.cpp", "*_unittest.cc", "*_test.c",    "**/benches/**"};
  bool exclude_auxiliary = true;
  std::vector<std::string> auxiliary_patterns = {"examples/**",   "**/examples/**",   "example/**",   "**/example/**",
                                                 "docs/**",       "**/docs/**",       "doc/**",       "**/doc/**",
                                                 "benchmarks/**", "**/benchmarks/**", "asv_bench/**", "setup.py",
                                                 "conftest.py",   "noxfile.py",       "fabfile.py"};
  std::int64_t min_lines = 5;
  std::int64_t max_lines = 400;
  std::int64_t max_folder_depth = 0;           // 0 = no limit; SERA uses 3
  std::string require_edges = "any";           // none | any | callees
  std::int64_t max_functions_per_repo = 5000;  // 0 = no cap
  std::int64_t replicas = 1;
  bool resolve_ambiguous = false;
  CategoryConfig categories;
};

struct PromptsConfig {
  std::string dir;  // empty = the prompts/ shipped with seragen
  std::string system = "system.md";
  std::string rollout1 = "rollout1.md";
  std::string rollout2 = "rollout2.md";
  std::string categories = "categories.yaml";
  std::string issue_writer = "issue_writer.md";
  std::string judge = "judge.md";
};

struct RetryConfig {
  std::int64_t max_attempts = 8;
  Duration initial_backoff_s{500};
  Duration max_backoff_s{30'000};
  Duration retry_after_cap_s{120'000};
  Duration total_budget_s{900'000};
};

struct HealthConfig {
  Duration probe_interval_s{15'000};
  std::int64_t eject_after_failures = 5;
};

// One extra HTTP header. The value is a literal or "${VAR}"; either way it
// is treated as a secret (never logged, never saved in the run's config).
struct HeaderConfig {
  std::string name;
  std::string value;
  friend bool operator==(const HeaderConfig&, const HeaderConfig&) = default;
};

struct EndpointConfig {
  std::string base_url;
  SecretRef api_key;
  std::int64_t max_concurrency = 0;  // 0 = llm.max_concurrency_per_endpoint
  std::vector<HeaderConfig> headers;
  // llm.endpoints[].pricing: this endpoint's prices, the keys it leaves out
  // taken from llm.pricing (a kind of price it sets replaces the other kind
  // there); nullopt: llm.pricing. Resolved by the loader.
  std::optional<Pricing> pricing;
};

struct LlmConfig {
  std::string model;                  // empty = the first id the endpoint lists
  bool allow_unlisted_model = false;  // a gateway routes ids its /models does not list
  std::vector<EndpointConfig> endpoints;
  SecretRef api_key;  // default for endpoints without their own
  double temperature = 0.6;
  double top_p = 1.0;
  std::int64_t max_tokens = 0;  // per agent turn; 0 = not sent (the server's context window decides)
  bool send_seed = true;
  bool stream = false;
  std::string tool_choice = "auto";          // auto | required
  std::string reasoning_field = "auto";      // auto | reasoning | reasoning_content | both | none
  std::string server = "auto";               // auto | vllm | sglang | llamacpp | openai | openrouter | generic
  std::string max_tokens_field = "auto";     // auto | max_tokens | max_completion_tokens
  std::string sampling_fields = "auto";      // auto | send | omit
  std::string parallel_tool_calls = "auto";  // auto | false | true | omit
  std::int64_t config_error_limit = 3;
  std::int64_t max_response_bytes = 64ll << 20;  // one answer on the wire (body or event stream)
  std::int64_t context_window = 0;               // 0 = ask the endpoint
  Duration request_timeout_s{600'000};
  Duration connect_timeout_s{10'000};
  Duration startup_wait_s{300'000};  // run start: wait this long for an endpoint to answer; 0 = one probe
  std::int64_t max_concurrency = 64;
  std::int64_t max_concurrency_per_endpoint = 32;
  std::string extra_body = "{}";  // JSON object text merged into every request
  RetryConfig retry;
  HealthConfig health;
  Pricing pricing;  // llm.pricing: the price of endpoints without their own (base/pricing.h)
};

struct AgentConfig {
  std::int64_t max_steps = 0;          // accepted turns, 0 = no limit
  std::int64_t max_model_calls = 115;  // every model call, format-error retries included
  std::int64_t max_format_errors = 3;
  Duration max_command_seconds{1'800'000};  // summed command run time, 0 = no limit
  Duration wall_clock_s{14'400'000};        // a safety net, far above what budgets allow
  Duration command_timeout_s{300'000};
  std::int64_t max_consecutive_timeouts = 3;
  std::int64_t max_tokens = 0;  // per rollout, 0 = no limit
  double max_cost_usd = 0;      // per rollout, 0 = no limit
  bool submit_review = true;
  std::int64_t max_patch_bytes = 1 << 20;        // larger P1/P2: exit_patch_too_large
  std::int64_t max_trajectory_bytes = 64 << 20;  // larger record: exit_trajectory_too_large
  std::int64_t max_answer_bytes = 1 << 20;       // larger answer: cut and rejected as a format error
};

struct ToolsConfig {
  std::string file;                         // empty = configs/tools.yaml shipped with seragen
  std::int64_t output_cap_chars = 100'000;  // characters (code points), not bytes
  std::int64_t view_max_lines = 400;
};

struct SandboxConfig {
  std::string mode = "bwrap";  // bwrap | none
  std::string mount_point = "/repo";
  std::string rootfs;  // empty = host root, read-only
  double cpu_seconds = 300;
  std::int64_t memory_mb = 4096;
  std::int64_t max_processes = 256;
  std::int64_t max_file_mb = 256;
  std::int64_t uid_base = 20000;
  std::string uid_lock_dir = "/run/seragen/uids";
  std::int64_t max_copy_mb = 2048;
  std::int64_t slot_memory_mb = 8192;
  std::string cgroup_parent = "/sys/fs/cgroup/seragen";
  std::vector<std::string> extra_ro_paths;  // host paths shown read-only besides the default view
  std::int64_t image_max_mb = 16384;        // unpacked size of one environment image
  std::int64_t image_max_files = 1000000;   // entries of one unpacked environment image
};

struct WorkcopyConfig {
  std::string dir;                // empty = RUN_DIR/workcopies
  std::int64_t max_per_repo = 0;  // 0 = run.concurrency
};

struct DemoIssueConfig {
  std::string source = "builtin";  // auto | builtin | file | commits
  std::string file;
  std::string repo;  // file: keep only objects with this "repo"
  std::int64_t max_commits = 500;
  std::int64_t min_commits = 20;  // auto: descriptive messages needed to use commits
};

struct IssueConfig {
  double temperature = 0.6;
  std::int64_t max_tokens = 4096;
  std::int64_t max_attempts = 10;  // requests until one answer holds a non-empty issue tag
  std::int64_t max_bytes = 65536;  // a longer issue text is unusable (asked again)
  DemoIssueConfig demos;
};

struct JudgeConfig {
  bool enabled = true;
  double temperature = 0.6;       // SERA samples its judge as its issue writer
  std::int64_t max_tokens = 0;    // 0 = issue.max_tokens
  std::int64_t max_attempts = 3;  // rollout-1 attempts in all, each judged
};

struct VerifyConfig {
  double threshold = 0.5;
  std::string rule = "sera";  // sera | structural
  bool test_evidence = true;  // seragen runs environment.test_command on base, base + P1, base + P2
  Duration test_timeout = std::chrono::seconds(900);  // per evidence run
};

// The held-out evaluation split and `seragen eval` (docs/EVAL.md).
struct EvalConfig {
  double holdout = 0;      // 0 = off; (0, 1) a fraction of functions; >= 1 a count
  std::int64_t seeds = 3;  // rollouts per held-out task in `seragen eval`
};

struct OutputConfig {
  std::vector<std::string> formats = {"hf"};
  std::string think = "keep";     // keep | drop | wrap
  std::string rollouts = "both";  // t1 | t2 | both
  bool only_submitted = true;
  bool include_tools = true;
  std::string tool_call_ids = "keep";  // keep | short9
  // Optional size filters (0 = off), tokens estimated as UTF-8 bytes / 4.
  std::int64_t max_record_tokens = 0;
  std::int64_t max_patch_lines = 0;
  std::int64_t max_avg_tool_output_tokens = 0;
  bool drop_malformed_think = false;  // leave out rollouts whose reasoning would not wrap cleanly
  std::string sera_tools_file;        // sera format's tool-list framing; empty: the prompts dir's default
};

// What `seragen export` does about credentials in the rows it writes
// (docs/SECRETS.md); read by the secrets module's scanner.
struct ExportSecretsConfig {
  std::string action = "redact";   // redact | drop | report
  std::vector<std::string> allow;  // exact strings, or "re:" + RE2 pattern
  std::string rules_file;          // empty: configs/secret_rules.yaml shipped with seragen
};

struct ExportConfig {
  ExportSecretsConfig secrets;
};

struct BudgetConfig {
  std::int64_t max_tasks = 0;  // 0 = no limit
  std::int64_t max_tokens = 0;
  double max_cost_usd = 0;
};

struct Config {
  RunConfig run;
  std::vector<RepoConfig> repos;
  EnvironmentConfig environment;  // run-wide default
  SelectionConfig selection;
  PromptsConfig prompts;
  LlmConfig llm;
  AgentConfig agent;
  ToolsConfig tools;
  SandboxConfig sandbox;
  WorkcopyConfig workcopies;
  IssueConfig issue;
  JudgeConfig judge;
  VerifyConfig verify;
  OutputConfig output;
  ExportConfig export_;  // key "export" (a C++ keyword)
  BudgetConfig budget;
  EvalConfig eval;
};

}  // namespace seragen::config
