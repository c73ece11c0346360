#include "config/schema_def.h"

#include <map>

#include "config/schema_fields.h"

namespace seragen::config::internal {
namespace {
// The schema table below is aligned by hand (key, member, doc, constraints per
// entry); clang-format would re-wrap it into something harder to read.
// clang-format off

template <typename S> using Str = ScalarField<S, std::string>;
template <typename S> using Int = ScalarField<S, std::int64_t>;
template <typename S> using Num = ScalarField<S, double>;
template <typename S> using Bool = ScalarField<S, bool>;
template <typename S> using Secs = ScalarField<S, Duration>;  // written as seconds

// A count, or the word `auto` (kept as 0 in memory and saved as `auto`).
template <typename S>
class CountOrAutoField final : public ScalarField<S, std::int64_t> {
 public:
  CountOrAutoField(std::string key, std::int64_t S::*member, std::string doc, Flag flags)
      : ScalarField<S, std::int64_t>(std::move(key), member, std::move(doc), flags), member_(member) {}
  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const override {
    if (node.IsScalar() && node.Scalar() == "auto") {
      obj.*member_ = 0;
      return;
    }
    ScalarField<S, std::int64_t>::Parse(node, obj, path, ctx);
  }
  nlohmann::ordered_json ToJson(const S& obj, bool, bool) const override {
    if (obj.*member_ == 0) return "auto";
    return obj.*member_;
  }
  void Document(const std::string& prefix, const S& defaults, std::vector<DocRow>& rows) const override {
    ScalarField<S, std::int64_t>::Document(prefix, defaults, rows);
    rows.back().type = "auto | " + rows.back().type;
    if (defaults.*member_ == 0) rows.back().default_value = "auto";
  }

 private:
  std::int64_t S::*member_;
};

constexpr Flag kOp = Flag::kOperational;

std::string CheckShard(const std::string& v) {
  if (v.empty()) return "";
  auto slash = v.find('/');
  auto k = ParseInt(v.substr(0, slash == std::string::npos ? 0 : slash));
  auto n = ParseInt(slash == std::string::npos ? "" : v.substr(slash + 1));
  if (!k || !n || *n < 1 || *k < 0 || *k >= *n) return "expected K/N with 0 <= K < N (e.g. 3/16)";
  return "";
}

Section<RunConfig> RunSchema() {
  Section<RunConfig> s;
  s.Add<Str<RunConfig>>("name", &RunConfig::name, "Name of the run, used in logs and exported metadata.", kOp);
  s.Add<Str<RunConfig>>("dir", &RunConfig::dir,
      "Run directory: plan, journals, trajectories, exported data. Rerunning with the same directory resumes.",
      kOp | Flag::kPath);
  s.Add<Int<RunConfig>>("seed", &RunConfig::seed,
      "Run seed. Every random choice (function order, categories, demonstration issues, sampling seeds) derives from it and the task id.")
      .Min(0);
  s.Add<CountOrAutoField<RunConfig>>("concurrency", &RunConfig::concurrency,
      "Tasks in flight at once (each holds one working copy and at most one model call). auto: adapted during the "
      "run so every endpoint's queue stays just non-empty (from the servers' published load, else from observed "
      "latency), never above what the node can hold (run.task_memory_mb, run.task_disk_mb, CPU); docs/RUN.md.", kOp)
      .Min(1).Max(100000);
  s.Add<Int<RunConfig>>("task_memory_mb", &RunConfig::task_memory_mb,
      "With concurrency auto: memory one task may need (its commands and its copy's page cache); the limit keeps "
      "a fifth of the node's available memory free.", kOp)
      .Min(1);
  s.Add<Int<RunConfig>>("task_disk_mb", &RunConfig::task_disk_mb,
      "With concurrency auto: disk one task's working copy may need; 0 = twice the largest repository's checkout. "
      "The limit keeps a fifth of the free space of the working copies' file system free.", kOp)
      .Min(0);
  s.Add<Str<RunConfig>>("shard", &RunConfig::shard,
      "This process's shard as K/N. Empty: SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT when set, else 0/1.", kOp)
      .Check(CheckShard, "Format K/N, 0 <= K < N.");
  s.Add<Secs<RunConfig>>("grace_period_s", &RunConfig::grace_period_s,
      "On SIGTERM/SIGINT, seconds in-flight work may take to finish before it is abandoned (and redone on resume).", kOp)
      .Min(Duration(0));
  s.Add<Str<RunConfig>>("log_level", &RunConfig::log_level, "Log verbosity.", kOp)
      .OneOf({"trace", "debug", "info", "warn", "error"});
  s.Add<Str<RunConfig>>("progress", &RunConfig::progress,
      "Live progress display: auto (only on a terminal), always, never.", kOp)
      .OneOf({"auto", "always", "never"});
  s.Add<Num<RunConfig>>("max_env_broken_share", &RunConfig::max_env_broken_share,
      "Stop the run (exit 2, naming the fix) once more than this share of its rollouts, after the first 8, ran a "
      "command that could not import the repository's own code (env_broken; docs/ENVIRONMENTS.md). 1: never.", kOp)
      .Min(0).Max(1);
  s.Add<Bool<RunConfig>>("allow_config_change", &RunConfig::allow_config_change,
      "Resume even when data-affecting settings differ from the run directory's saved config.", kOp);
  return s;
}

// An environment section, or the word `none` (no environment, even over a
// run-wide one): read as {profile: none}, which is also how it is saved.
template <typename S>
class EnvironmentField final : public SectionField<S, EnvironmentConfig> {
 public:
  EnvironmentField(std::string key, EnvironmentConfig S::*member, std::string doc, Section<EnvironmentConfig> section)
      : SectionField<S, EnvironmentConfig>(std::move(key), member, std::move(doc), std::move(section)),
        member_(member) {}
  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const override {
    if (node.IsScalar() && node.Scalar() == "none") {
      obj.*member_ = EnvironmentConfig{};
      (obj.*member_).profile = "none";
      return;
    }
    SectionField<S, EnvironmentConfig>::Parse(node, obj, path, ctx);
  }

 private:
  EnvironmentConfig S::*member_;
};

Section<EnvironmentConfig> EnvironmentSchema() {
  Section<EnvironmentConfig> s;
  s.Add<Str<EnvironmentConfig>>("profile", &EnvironmentConfig::profile,
      "The profile that wrote this section (`seragen config init` detects it: python, node, go, rust), named when "
      "setup fails; none: no environment (also written `environment: none`). Empty: a hand-written environment.")
      .Check([](const std::string& v) -> std::string {
        for (const char* name : {"", "none", "python", "node", "go", "rust"}) {
          if (v == name) return "";
        }
        return "expected one of python, node, go, rust, none";
      }, "python, node, go, rust or none.");
  s.Add<Str<EnvironmentConfig>>("image", &EnvironmentConfig::image,
      "Container image to run commands in: an OCI image layout directory or a `docker save` / `podman save` "
      "archive, unpacked once into cache_dir. Exclusive with rootfs. Empty: the host root.", Flag::kPath);
  s.Add<Str<EnvironmentConfig>>("rootfs", &EnvironmentConfig::rootfs,
      "Existing root filesystem directory to run commands in (read-only). Exclusive with image.", Flag::kPath);
  s.Add<StringListField<EnvironmentConfig>>("setup", &EnvironmentConfig::setup,
      "Shell commands run once per (repository, commit, environment) in the sandbox, in the working copy, with "
      "the prefix writable; their output goes to RUN_DIR/env/<repo>-<commit>.log. The prepared prefix is cached.");
  s.Add<Bool<EnvironmentConfig>>("setup_network", &EnvironmentConfig::setup_network,
      "Let setup commands use the network (rollouts never do).");
  s.Add<StringMapField<EnvironmentConfig>>("env", &EnvironmentConfig::env,
      "Variables set for setup commands and every rollout command, over the sandbox defaults "
      "(e.g. PATH: /env/bin:/usr/bin:/bin).");
  s.Add<Str<EnvironmentConfig>>("prefix", &EnvironmentConfig::prefix,
      "Where the prepared prefix appears inside (writable during setup, read-only for rollouts).")
      .Check([](const std::string& v) -> std::string {
        return (v.size() > 1 && v[0] == '/' && v.find('/', 1) == std::string::npos) ? ""
                                                                                   : "expected an absolute path of one component, e.g. /env";
      }, "Absolute, one component.");
  s.Add<Str<EnvironmentConfig>>("check", &EnvironmentConfig::check,
      "Command run in a rollout's sandbox by `seragen env check` and by `seragen run` before its first model call "
      "(e.g. python -c \"import pkg\"); a run whose check fails stops with exit 2.");
  s.Add<Str<EnvironmentConfig>>("test_command", &EnvironmentConfig::test_command,
      "The repository's test command (e.g. python -m pytest -q), run from the working copy; the rollout prompts "
      "show it as {{test_command}} and ask the agent to run it. Empty: the prompts only suggest running tests.");
  s.Add<Str<EnvironmentConfig>>("cache_dir", &EnvironmentConfig::cache_dir,
      "Where prepared prefixes and unpacked images (under images/) are cached; as root with bubblewrap, in the "
      "subtree group-GID of the run's sandbox group (GID = sandbox.uid_base - 1). Empty: $XDG_CACHE_HOME/seragen/env; "
      "else, as root, /var/cache/seragen/env; else $HOME/.cache/seragen/env. Every directory above it must let the "
      "sandbox uids through (o+x).", kOp | Flag::kPath);
  return s;
}

Section<RepoConfig> RepoSchema() {
  Section<RepoConfig> s;
  s.Add<Str<RepoConfig>>("name", &RepoConfig::name,
      "Short unique name used in task ids and metadata. Default: the last path component of source.");
  s.Add<Str<RepoConfig>>("source", &RepoConfig::source,
      "Local repository path, or a clone URL (file://, https://).", Flag::kRequired);
  s.Add<Str<RepoConfig>>("ref", &RepoConfig::ref, "Branch, tag or commit to generate data at.");
  s.Add<Int<RepoConfig>>("max_file_bytes", &RepoConfig::max_file_bytes,
      "Files larger than this are not parsed. At most 8 MiB: parsing costs about 65 bytes of memory per source "
      "byte, per parsing thread.").Min(1).Max(8 << 20);
  s.Add<EnvironmentField<RepoConfig>>("environment", &RepoConfig::environment,
      "This repository's environment; when it sets any key it replaces the run-wide environment as a whole "
      "(keys it omits take their defaults). `none`: no environment for this repository.", EnvironmentSchema());
  s.Add<StringListField<RepoConfig>>("skip", &RepoConfig::skip,
      "Path globs never parsed (vendored or generated code).");
  return s;
}

Section<CategoryConfig> CategorySchema() {
  Section<CategoryConfig> s;
  s.Add<Str<CategoryConfig>>("mode", &CategoryConfig::mode,
      "all: one task per category per function; sample: per_function seeded categories per function.")
      .OneOf({"all", "sample"});
  s.Add<Int<CategoryConfig>>("per_function", &CategoryConfig::per_function,
      "Categories sampled per function when mode is sample.").Min(1).Max(51);
  return s;
}

Section<SelectionConfig> SelectionSchema() {
  Section<SelectionConfig> s;
  s.Add<StringListField<SelectionConfig>>("languages", &SelectionConfig::languages,
      "Languages whose functions can be picked.")
      .OneOf({"python", "javascript", "typescript", "go", "rust", "java", "c", "cpp"}).NonEmpty();
  s.Add<StringListField<SelectionConfig>>("include", &SelectionConfig::include,
      "If set, only functions in files matching one of these globs.");
  s.Add<StringListField<SelectionConfig>>("exclude", &SelectionConfig::exclude,
      "Functions in files matching these globs are never picked.");
  s.Add<Bool<SelectionConfig>>("exclude_tests", &SelectionConfig::exclude_tests,
      "Skip test code (files matching test_patterns, and test_* / Test* function names).");
  s.Add<StringListField<SelectionConfig>>("test_patterns", &SelectionConfig::test_patterns,
      "Globs that identify test files.");
  s.Add<Bool<SelectionConfig>>("exclude_auxiliary", &SelectionConfig::exclude_auxiliary,
      "Skip code outside the package proper: files matching auxiliary_patterns (examples, docs, benchmarks, "
      "setup and task scripts).");
  s.Add<StringListField<SelectionConfig>>("auxiliary_patterns", &SelectionConfig::auxiliary_patterns,
      "Globs that identify examples, docs, benchmarks and setup/task scripts (see docs/CALLGRAPH.md).");
  s.Add<Int<SelectionConfig>>("min_lines", &SelectionConfig::min_lines, "Smallest function (lines) to pick.").Min(1);
  s.Add<Int<SelectionConfig>>("max_lines", &SelectionConfig::max_lines, "Largest function (lines) to pick.").Min(1);
  s.Add<Int<SelectionConfig>>("max_folder_depth", &SelectionConfig::max_folder_depth,
      "Pick functions only from files with at most this many path components after the first one (the file name "
      "counted: pkg/a/b/mod.py has 3), SERA's folder-depth rule; SERA uses 3. 0 = no limit.").Min(0).Max(1 << 20);
  s.Add<Str<SelectionConfig>>("require_edges", &SelectionConfig::require_edges,
      "Call edges a function needs: none; any (at least one resolved caller or callee, as SERA's call graph "
      "keeps only connected functions); callees (at least one resolved callee).")
      .OneOf({"none", "any", "callees"});
  s.Add<Int<SelectionConfig>>("max_functions_per_repo", &SelectionConfig::max_functions_per_repo,
      "Cap on picked functions per repository, a seeded sample when more qualify (0 = no cap; SERA uses 5000).")
      .Min(0);
  s.Add<Int<SelectionConfig>>("replicas", &SelectionConfig::replicas,
      "Rollouts per picked category. With categories.mode sample every replica draws a category the function "
      "has not had yet (until all are used); with mode all, replicas of a category differ in sampling seed.")
      .Min(1).Max(1000);
  s.Add<Bool<SelectionConfig>>("resolve_ambiguous", &SelectionConfig::resolve_ambiguous,
      "Add call edges to every candidate when a name is ambiguous (default: no edge, counted).");
  s.Add<SectionField<SelectionConfig, CategoryConfig>>("categories", &SelectionConfig::categories,
      "Bug-category assignment.", CategorySchema());
  return s;
}

Section<PromptsConfig> PromptsSchema() {
  Section<PromptsConfig> s;
  s.Add<Str<PromptsConfig>>("dir", &PromptsConfig::dir,
      "Directory of prompt files. Empty: the prompts/ shipped with seragen.", Flag::kPath);
  s.Add<Str<PromptsConfig>>("system", &PromptsConfig::system, "Agent system prompt (file in dir).");
  s.Add<Str<PromptsConfig>>("rollout1", &PromptsConfig::rollout1, "Rollout-1 instance template.");
  s.Add<Str<PromptsConfig>>("rollout2", &PromptsConfig::rollout2, "Rollout-2 instance template.");
  s.Add<Str<PromptsConfig>>("categories", &PromptsConfig::categories, "Bug-category prompt texts (51 entries).");
  s.Add<Str<PromptsConfig>>("issue_writer", &PromptsConfig::issue_writer, "Synthetic-issue writer template.");
  s.Add<Str<PromptsConfig>>("judge", &PromptsConfig::judge, "Judge template.");
  return s;
}

Section<RetryConfig> RetrySchema() {
  Section<RetryConfig> s;
  s.Add<Int<RetryConfig>>("max_attempts", &RetryConfig::max_attempts, "Attempts per call, first included.", kOp).Min(1);
  s.Add<Secs<RetryConfig>>("initial_backoff_s", &RetryConfig::initial_backoff_s, "First retry delay (doubles each time, with jitter).", kOp).Min(Duration(0));
  s.Add<Secs<RetryConfig>>("max_backoff_s", &RetryConfig::max_backoff_s, "Largest retry delay.", kOp).Min(Duration(0));
  s.Add<Secs<RetryConfig>>("retry_after_cap_s", &RetryConfig::retry_after_cap_s,
      "Server-requested delays (Retry-After) above this are not waited for: the call fails as rate limited.", kOp).Min(Duration(0));
  s.Add<Secs<RetryConfig>>("total_budget_s", &RetryConfig::total_budget_s,
      "Total time one call may spend retrying before it fails as an infrastructure error.", kOp).Min(Duration(0));
  return s;
}

Section<HealthConfig> HealthSchema() {
  Section<HealthConfig> s;
  s.Add<Secs<HealthConfig>>("probe_interval_s", &HealthConfig::probe_interval_s,
      "How often an ejected endpoint is probed (GET /v1/models).", kOp).Min(Duration(100));
  s.Add<Int<HealthConfig>>("eject_after_failures", &HealthConfig::eject_after_failures,
      "Consecutive failures that take an endpoint out of rotation.", kOp).Min(1);
  return s;
}

Section<Pricing> PricingSchema() {
  Section<Pricing> s;
  s.Add<Num<Pricing>>("prompt_per_mtok", &Pricing::prompt_per_mtok,
      "USD per million prompt tokens (those not served from the server's prompt cache).", kOp).Min(0);
  s.Add<Num<Pricing>>("completion_per_mtok", &Pricing::completion_per_mtok, "USD per million completion tokens.", kOp)
      .Min(0);
  s.Add<Num<Pricing>>("cached_per_mtok", &Pricing::cached_per_mtok,
      "USD per million cached prompt tokens (as the server reports them); -1 = not set: the prompt price.", kOp)
      .Min(-1);
  s.Add<Num<Pricing>>("gpu_hour_usd", &Pricing::gpu_hour_usd,
      "USD per GPU-hour of each endpoint's wall time (its occupancy record), instead of per-token prices; "
      "exclusive with them (docs/RUN.md, \"Cost ledger\").", kOp).Min(0);
  s.Add<Int<Pricing>>("gpus_per_endpoint", &Pricing::gpus_per_endpoint,
      "GPUs behind each endpoint, for llm.pricing.gpu_hour_usd.", kOp).Min(1);
  return s;
}

Section<EndpointConfig> EndpointSchema() {
  Section<EndpointConfig> s;
  s.Add<Str<EndpointConfig>>("base_url", &EndpointConfig::base_url,
      "OpenAI-compatible base URL, e.g. http://gpu-node-3:8000/v1.", Flag::kRequired | kOp)
      .Check([](const std::string& v) -> std::string {
        if (v.rfind("http://", 0) == 0 || v.rfind("https://", 0) == 0) return "";
        return "expected a URL starting with http:// or https://";
      }, "Must start with http:// or https://.");
  s.Add<SecretField<EndpointConfig>>("api_key", &EndpointConfig::api_key,
      "API key for this endpoint as ${ENV_VAR}; default llm.api_key.");
  s.Add<Int<EndpointConfig>>("max_concurrency", &EndpointConfig::max_concurrency,
      "Requests in flight to this endpoint (0 = llm.max_concurrency_per_endpoint).", kOp).Min(0);
  s.Add<HeaderMapField<EndpointConfig>>("headers", &EndpointConfig::headers,
      "Extra HTTP headers for this endpoint (e.g. a gateway token as ${VAR}). Values are secrets: never logged, never saved in the run directory.");
  s.Add<OptionalSectionField<EndpointConfig, Pricing>>("pricing", &EndpointConfig::pricing,
      "This endpoint's prices, when they differ from llm.pricing (a local server beside a hosted one, two "
      "providers): its tokens and wall time are costed with them. Keys left out are taken from llm.pricing, "
      "except that a kind of price set here (a *_per_mtok price, or gpu_hour_usd) replaces the other kind there. "
      "Absent: llm.pricing.", PricingSchema(), "llm.pricing", kOp);
  return s;
}

Section<LlmConfig> LlmSchema() {
  Section<LlmConfig> s;
  s.Add<Str<LlmConfig>>("model", &LlmConfig::model,
      "Model id sent in requests. Empty: the first id the endpoint lists at /v1/models. At the start of run it must "
      "be one of the ids the endpoints list (exit code 2 naming them) unless llm.allow_unlisted_model is set.");
  s.Add<Bool<LlmConfig>>("allow_unlisted_model", &LlmConfig::allow_unlisted_model,
      "Accept an llm.model that /v1/models does not list (a gateway that routes names it does not list). "
      "Records name the model each response reports either way.", kOp);
  s.Add<ListField<LlmConfig, EndpointConfig>>("endpoints", &LlmConfig::endpoints,
      "Endpoints serving the model; requests go to the one with the fewest outstanding.",
      EndpointSchema(), Flag::kRequired | kOp, 1);
  s.Add<SecretField<LlmConfig>>("api_key", &LlmConfig::api_key,
      "Default API key as ${ENV_VAR} (e.g. ${OPENAI_API_KEY}). Empty: no Authorization header.");
  s.Add<Num<LlmConfig>>("temperature", &LlmConfig::temperature, "Sampling temperature for agent turns.").Min(0).Max(2);
  s.Add<Num<LlmConfig>>("top_p", &LlmConfig::top_p, "Nucleus sampling.").Min(0).Max(1);
  s.Add<Int<LlmConfig>>("max_tokens", &LlmConfig::max_tokens,
      "Completion tokens per agent turn; 0 = none sent, so the server allows what its context window leaves.").Min(0);
  s.Add<Bool<LlmConfig>>("send_seed", &LlmConfig::send_seed,
      "Send a per-request seed derived from the run seed and task id.");
  s.Add<Bool<LlmConfig>>("stream", &LlmConfig::stream, "Use SSE streaming.", kOp);
  s.Add<Str<LlmConfig>>("tool_choice", &LlmConfig::tool_choice,
      "tool_choice sent with agent turns.").OneOf({"auto", "required"});
  s.Add<Str<LlmConfig>>("reasoning_field", &LlmConfig::reasoning_field,
      "Field name used to send earlier reasoning back in history. auto: the server profile's choice (llm.server).")
      .OneOf({"auto", "reasoning", "reasoning_content", "both", "none"});
  s.Add<Str<LlmConfig>>("server", &LlmConfig::server,
      "Server profile: which request fields the server accepts. auto: detected once per endpoint at start "
      "(Server header, /props, /models owned_by, /server_info, /version, host name); `seragen llm ping` shows the result.", kOp)
      .OneOf({"auto", "vllm", "sglang", "llamacpp", "openai", "openrouter", "generic"});
  s.Add<Str<LlmConfig>>("max_tokens_field", &LlmConfig::max_tokens_field,
      "Name that carries llm.max_tokens (never both). auto: the server profile's choice "
      "(max_completion_tokens for OpenAI, else max_tokens).", kOp)
      .OneOf({"auto", "max_tokens", "max_completion_tokens"});
  s.Add<Str<LlmConfig>>("sampling_fields", &LlmConfig::sampling_fields,
      "send: temperature and top_p are sent; omit: the server's defaults are used (OpenAI reasoning models take no others). "
      "auto: the server profile's choice.", kOp)
      .OneOf({"auto", "send", "omit"});
  s.Add<Str<LlmConfig>>("parallel_tool_calls", &LlmConfig::parallel_tool_calls,
      "parallel_tool_calls sent with tools: false, true, or omit. auto: false where the server honours it "
      "(vLLM, llama.cpp, OpenAI non-reasoning models, OpenRouter), else omitted.", kOp)
      .OneOf({"auto", "false", "true", "omit"});
  s.Add<Int<LlmConfig>>("config_error_limit", &LlmConfig::config_error_limit,
      "The same configuration error (the server refuses a setting) on this many consecutive calls stops the run "
      "with exit code 2. Configuration errors are never retried.", kOp).Min(1).Max(1000);
  s.Add<Int<LlmConfig>>("max_response_bytes", &LlmConfig::max_response_bytes,
      "Bytes one answer may take on the wire (the response body, or the whole event stream with llm.stream). A "
      "longer answer is a server fault: the attempt fails as transient_server and is retried. Real answers are far "
      "smaller (a streamed 32k-token answer is about 8 MB).", kOp).Min(65536);
  s.Add<Int<LlmConfig>>("context_window", &LlmConfig::context_window,
      "Context window in tokens; 0 asks the endpoint (max_model_len / n_ctx).").Min(0);
  s.Add<Secs<LlmConfig>>("request_timeout_s", &LlmConfig::request_timeout_s,
      "Deadline of one HTTP request (long prefills can be silent for minutes).", kOp).Min(Duration(1));
  s.Add<Secs<LlmConfig>>("connect_timeout_s", &LlmConfig::connect_timeout_s, "TCP/TLS connect timeout.", kOp).Min(Duration(1));
  s.Add<Secs<LlmConfig>>("startup_wait_s", &LlmConfig::startup_wait_s,
      "At the start of run, how long to keep probing the endpoints (GET /models) until one lists a model (a server "
      "still loading answers 503 or refuses connections). If none has by then, run stops with exit code 1. A 401, "
      "403 or 404 is not waited out: exit code 2 at once, naming the URL and the key to fix. 0 = probe once.", kOp)
      .Min(Duration(0));
  s.Add<Int<LlmConfig>>("max_concurrency", &LlmConfig::max_concurrency, "Requests in flight over all endpoints.", kOp).Min(1);
  s.Add<Int<LlmConfig>>("max_concurrency_per_endpoint", &LlmConfig::max_concurrency_per_endpoint,
      "Default requests in flight per endpoint.", kOp).Min(1);
  s.Add<JsonObjectField<LlmConfig>>("extra_body", &LlmConfig::extra_body,
      "Server-specific fields merged into every request body (e.g. chat_template_kwargs).");
  s.Add<SectionField<LlmConfig, RetryConfig>>("retry", &LlmConfig::retry, "Retries of failed calls.", RetrySchema(), kOp);
  s.Add<SectionField<LlmConfig, HealthConfig>>("health", &LlmConfig::health, "Endpoint health checks.", HealthSchema(), kOp);
  s.Add<SectionField<LlmConfig, Pricing>>("pricing", &LlmConfig::pricing,
      "Prices for the cost ledger (`seragen status`, report, dataset card) and budgets: per-token prices or a GPU-hour price.", PricingSchema(), kOp);
  return s;
}

Section<AgentConfig> AgentSchema() {
  Section<AgentConfig> s;
  s.Add<Int<AgentConfig>>("max_steps", &AgentConfig::max_steps,
      "Accepted assistant turns per rollout (exit_steps); 0 = no limit. max_model_calls is SERA's count.").Min(0);
  s.Add<Int<AgentConfig>>("max_model_calls", &AgentConfig::max_model_calls,
      "Model calls per rollout, format-error retries included, as SERA counts them (exit_model_calls); "
      "0 = no limit.").Min(0);
  s.Add<Int<AgentConfig>>("max_format_errors", &AgentConfig::max_format_errors,
      "Consecutive malformed turns before the rollout ends with exit_format.").Min(1);
  s.Add<Secs<AgentConfig>>("max_command_seconds", &AgentConfig::max_command_seconds,
      "Summed run time of the rollout's tool calls, as SERA counts it (exit_command_time); 0 = no limit.")
      .Min(Duration(0));
  s.Add<Secs<AgentConfig>>("wall_clock_s", &AgentConfig::wall_clock_s,
      "Wall-clock limit per rollout (exit_wall_clock): a safety net for a stuck rollout, set far above what "
      "max_model_calls and max_command_seconds allow, so a slow teacher does not hit it.").Min(Duration(1));
  s.Add<Secs<AgentConfig>>("command_timeout_s", &AgentConfig::command_timeout_s, "Limit per bash command.").Min(Duration(1));
  s.Add<Int<AgentConfig>>("max_consecutive_timeouts", &AgentConfig::max_consecutive_timeouts,
      "Consecutive command timeouts before the rollout ends.").Min(1);
  s.Add<Int<AgentConfig>>("max_tokens", &AgentConfig::max_tokens, "Tokens (prompt + completion) per rollout; 0 = no limit.").Min(0);
  s.Add<Num<AgentConfig>>("max_cost_usd", &AgentConfig::max_cost_usd,
      "Cost per rollout, each answer priced with the per-token prices of the endpoint that gave it "
      "(llm.endpoints[].pricing, else llm.pricing); 0 = no limit.").Min(0);
  s.Add<Bool<AgentConfig>>("submit_review", &AgentConfig::submit_review,
      "First submit shows the agent its diff for review; the second submits.");
  s.Add<Int<AgentConfig>>("max_patch_bytes", &AgentConfig::max_patch_bytes,
      "Largest patch (diff of the working copy against the base) a rollout may produce. A larger one ends the "
      "rollout with exit_patch_too_large; it is never read whole, stored or sent. Also bounds the new file content "
      "the diff reads.").Min(1024).Max(std::int64_t{1} << 30);
  s.Add<Int<AgentConfig>>("max_trajectory_bytes", &AgentConfig::max_trajectory_bytes,
      "Approximate size of one rollout's trajectory record (model replies with their wire bodies, tool calls, "
      "observations). Checked before each model call; past it the rollout ends with exit_trajectory_too_large.")
      .Min(65536).Max(std::int64_t{1} << 34);
  s.Add<Int<AgentConfig>>("max_answer_bytes", &AgentConfig::max_answer_bytes,
      "Bytes of one model answer's text (content, reasoning and tool-call arguments). A longer answer is cut when "
      "it arrives (a short head of each text is kept) and rejected as a format error, so it is neither stored "
      "whole nor sent back.")
      .Min(4096).Max(std::int64_t{1} << 30);
  return s;
}

Section<ToolsConfig> ToolsSchema() {
  Section<ToolsConfig> s;
  s.Add<Str<ToolsConfig>>("file", &ToolsConfig::file,
      "Tool definitions (names, descriptions, schemas). Empty: configs/tools.yaml shipped with seragen.", Flag::kPath);
  s.Add<Int<ToolsConfig>>("output_cap_chars", &ToolsConfig::output_cap_chars,
      "Largest command output shown to the agent, in characters (code points, as SWE-agent counts an "
      "observation); longer output keeps its first 3/4 and last 1/4 around a note.").Min(256);
  s.Add<Int<ToolsConfig>>("view_max_lines", &ToolsConfig::view_max_lines, "Lines shown by one file view.").Min(1);
  return s;
}

// An entry of sandbox.extra_ro_paths: "" when usable, else why not. Existence
// is checked when a sandbox is made (the config may be written elsewhere).
std::string CheckExtraRoPath(const std::string& v) {
  if (v.empty() || v[0] != '/') return "expected an absolute path";
  if (v == "/") return "/ would show the whole host; list the directories the commands need";
  if (v.find("//") != std::string::npos || v.back() == '/') return "expected a path without empty components";
  for (std::size_t start = 1; start <= v.size();) {
    std::size_t end = v.find('/', start);
    if (end == std::string::npos) end = v.size();
    const std::string part = v.substr(start, end - start);
    if (part == "." || part == "..") return "expected a path without . or .. components";
    start = end + 1;
  }
  for (const char* made : {"/proc", "/dev", "/tmp", "/run"}) {
    const std::string m = made;
    if (v == m || v.rfind(m + "/", 0) == 0) return "the sandbox makes its own " + m + "; it cannot be shown from the host";
  }
  return "";
}

Section<SandboxConfig> SandboxSchema() {
  Section<SandboxConfig> s;
  s.Add<Str<SandboxConfig>>("mode", &SandboxConfig::mode,
      "bwrap: bubblewrap sandbox. none: commands run unconfined on the host (loudly warned; only for machines without user namespaces).")
      .OneOf({"bwrap", "none"});
  s.Add<Str<SandboxConfig>>("mount_point", &SandboxConfig::mount_point, "Where the working copy appears to the agent.")
      .Check([](const std::string& v) -> std::string {
        return (!v.empty() && v[0] == '/' && v != "/") ? "" : "expected an absolute path other than /";
      }, "Absolute, not /.");
  s.Add<Str<SandboxConfig>>("rootfs", &SandboxConfig::rootfs,
      "Root filesystem for commands (read-only). Empty: the host root, read-only.", Flag::kPath);
  s.Add<Num<SandboxConfig>>("cpu_seconds", &SandboxConfig::cpu_seconds, "CPU time limit per command.").Min(1);
  s.Add<Int<SandboxConfig>>("memory_mb", &SandboxConfig::memory_mb, "Address-space limit per process.").Min(16);
  s.Add<Int<SandboxConfig>>("max_processes", &SandboxConfig::max_processes, "Process limit per rollout slot.").Min(4);
  s.Add<Int<SandboxConfig>>("max_file_mb", &SandboxConfig::max_file_mb, "Largest file a command may write.").Min(1);
  s.Add<Int<SandboxConfig>>("uid_base", &SandboxConfig::uid_base,
      "Slot k runs as real uid uid_base + k (needed for the process limit when seragen runs as root).", kOp)
      .Min(1000).Max(4000000000LL);
  s.Add<Int<SandboxConfig>>("max_copy_mb", &SandboxConfig::max_copy_mb,
      "Disk a working copy may use, measured after every command and edit (allocated blocks; a million entries "
      "also counts as over); over it the rollout ends with exit_disk_limit. 0 = unchecked.").Min(0);
  s.Add<Int<SandboxConfig>>("slot_memory_mb", &SandboxConfig::slot_memory_mb,
      "Memory of all processes of one slot together (cgroup v2 memory.max, swap off). Used when cgroup_parent is a "
      "cgroup v2 directory with the memory controller; otherwise only memory_mb per process applies (logged at "
      "start). 0 = no slot bound.", kOp).Min(0);
  s.Add<Str<SandboxConfig>>("cgroup_parent", &SandboxConfig::cgroup_parent,
      "cgroup v2 directory (created if missing; on systemd hosts a delegated subtree) under which each slot gets a "
      "child cgroup slot-<uid>.", kOp)
      .Check([](const std::string& v) -> std::string {
        return (!v.empty() && v[0] == '/') ? "" : "expected an absolute path";
      }, "Absolute.");
  s.Add<StringListField<SandboxConfig>>("extra_ro_paths", &SandboxConfig::extra_ro_paths,
      "Host paths shown read-only at the same path inside the sandbox, besides its default view (the system "
      "directories /usr, /bin, /sbin, /lib*, /etc without its secrets, or the image root; the environment prefix; "
      "the working copy; the rollout's /tmp). Absolute, existing, not / and not under /proc, /dev, /tmp or /run. Whatever is "
      "listed here can reach the teacher and the training data (docs/SECURITY.md).")
      .Check(CheckExtraRoPath);
  s.Add<Int<SandboxConfig>>("image_max_mb", &SandboxConfig::image_max_mb,
      "Largest unpacked environment image (file data, counted in its layers before unpacking and again on disk); "
      "a bigger image stops with an error and leaves nothing in the cache.", kOp).Min(1);
  s.Add<Int<SandboxConfig>>("image_max_files", &SandboxConfig::image_max_files,
      "Most entries (files, directories, links) of one unpacked environment image.", kOp).Min(1);
  s.Add<Str<SandboxConfig>>("uid_lock_dir", &SandboxConfig::uid_lock_dir,
      "Node-wide directory of per-uid lock files: a run locks one uid per slot from uid_base up, skipping uids "
      "another run on this node holds, and kills leftover processes of the uids it locked.", kOp)
      .Check([](const std::string& v) -> std::string {
        return (!v.empty() && v[0] == '/') ? "" : "expected an absolute path";
      }, "Absolute.");
  return s;
}

Section<WorkcopyConfig> WorkcopySchema() {
  Section<WorkcopyConfig> s;
  s.Add<Str<WorkcopyConfig>>("dir", &WorkcopyConfig::dir,
      "Where working copies live. Empty: RUN_DIR/workcopies. tmpfs (e.g. /dev/shm/seragen) is fastest.", kOp | Flag::kPath);
  s.Add<Int<WorkcopyConfig>>("max_per_repo", &WorkcopyConfig::max_per_repo,
      "Copies per repository (0 = run.concurrency).", kOp).Min(0);
  return s;
}

Section<DemoIssueConfig> DemoIssueSchema() {
  Section<DemoIssueConfig> s;
  s.Add<Str<DemoIssueConfig>>("source", &DemoIssueConfig::source,
      "Where demonstration issues come from: builtin (seragen's user-style bug reports, prompts/demo_issues/), a "
      "user file (JSONL/JSON/text, incl. SWE-bench JSONL), the repositories' commit messages (which describe fixes, "
      "not problems), or auto: commits when at least issue.demos.min_commits of them are descriptive, else builtin.")
      .OneOf({"auto", "builtin", "file", "commits"});
  s.Add<Str<DemoIssueConfig>>("file", &DemoIssueConfig::file, "File of demonstration issues when source is file.", Flag::kPath);
  s.Add<Str<DemoIssueConfig>>("repo", &DemoIssueConfig::repo,
      "With source file: keep only JSON objects whose \"repo\" equals this (e.g. a SWE-bench owner/name).");
  s.Add<Int<DemoIssueConfig>>("max_commits", &DemoIssueConfig::max_commits,
      "Non-merge commits whose messages are read per repository for commits and auto (a message over 16 KiB is "
      "skipped, 1 MiB of messages in all; docs/REPO.md).").Min(1);
  s.Add<Int<DemoIssueConfig>>("min_commits", &DemoIssueConfig::min_commits,
      "Descriptive commit messages (60+ characters, not merges or reverts) auto needs to use commits.").Min(1);
  return s;
}

Section<IssueConfig> IssueSchema() {
  Section<IssueConfig> s;
  s.Add<Num<IssueConfig>>("temperature", &IssueConfig::temperature, "Sampling temperature of the issue writer.").Min(0).Max(2);
  s.Add<Int<IssueConfig>>("max_tokens", &IssueConfig::max_tokens, "Completion tokens for the issue.").Min(16);
  s.Add<Int<IssueConfig>>("max_attempts", &IssueConfig::max_attempts,
      "Requests to the issue writer until one answer holds a non-empty issue tag; then the task fails.").Min(1).Max(100);
  s.Add<Int<IssueConfig>>("max_bytes", &IssueConfig::max_bytes,
      "Bytes of the issue text. A longer issue is unusable like one without the tag: the writer is asked again "
      "(within issue.max_attempts), since the issue is stored and sent in every rollout-2 request.").Min(256);
  s.Add<SectionField<IssueConfig, DemoIssueConfig>>("demos", &IssueConfig::demos, "Demonstration issues.", DemoIssueSchema());
  return s;
}

Section<JudgeConfig> JudgeSchema() {
  Section<JudgeConfig> s;
  s.Add<Bool<JudgeConfig>>("enabled", &JudgeConfig::enabled,
      "Ask a yes/no judge whether P1 (seen with rollout 1's steps) addresses the rollout-1 prompt; a no sends the "
      "task back to rollout 1.");
  s.Add<Num<JudgeConfig>>("temperature", &JudgeConfig::temperature,
      "Sampling temperature of the judge (SERA samples it at 0.6, as the issue writer).").Min(0).Max(2);
  s.Add<Int<JudgeConfig>>("max_tokens", &JudgeConfig::max_tokens,
      "Completion tokens for the judge; 0 = issue.max_tokens.").Min(0);
  s.Add<Int<JudgeConfig>>("max_attempts", &JudgeConfig::max_attempts,
      "Rollout-1 attempts per task, each judged; after the last no the task is skipped (judge_no).").Min(1).Max(20);
  return s;
}

Section<VerifyConfig> VerifySchema() {
  Section<VerifyConfig> s;
  s.Add<Num<VerifyConfig>>("threshold", &VerifyConfig::threshold,
      "Accept rollout 2 when recall of P1's changed lines in P2 is at least this (1 = hard, 0 = accept all scorable).")
      .Min(0).Max(1);
  s.Add<Str<VerifyConfig>>("rule", &VerifyConfig::rule,
      "What counts as a changed line: sera (SERA's line rule, scores equal SERA's) or structural (hunk-aware "
      "unified-diff parser). See docs/VERIFY.md.")
      .OneOf({"sera", "structural"});
  s.Add<Bool<VerifyConfig>>("test_evidence", &VerifyConfig::test_evidence,
      "When the repository has environment.test_command, seragen runs it itself after rollout 2 on the base commit, "
      "base + P1 and base + P2 (fresh copies, sandboxed, offline) and records whether P2 changes the test outcomes P1 "
      "changed (docs/VERIFY.md, \"Test evidence\"). The model's own test runs are never evidence.", kOp);
  s.Add<Secs<VerifyConfig>>("test_timeout", &VerifyConfig::test_timeout,
      "Wall-clock limit of one evidence run of the test command; a run past it leaves the evidence unavailable.", kOp)
      .Min(Duration(1000));
  return s;
}

Section<OutputConfig> OutputSchema() {
  Section<OutputConfig> s;
  s.Add<StringListField<OutputConfig>>("formats", &OutputConfig::formats, "Training formats written by `seragen export` and `merge` (their flags override every output key).", kOp)
      .OneOf({"hf", "openai", "hermes", "xml", "sera", "sharegpt"}).NonEmpty();
  s.Add<Str<OutputConfig>>("think", &OutputConfig::think,
      "Reasoning text in exported turns: keep, drop, or wrap in <think> tags.", kOp).OneOf({"keep", "drop", "wrap"});
  s.Add<Str<OutputConfig>>("rollouts", &OutputConfig::rollouts, "Which trajectories to export.", kOp)
      .OneOf({"t1", "t2", "both"});
  s.Add<Bool<OutputConfig>>("only_submitted", &OutputConfig::only_submitted,
      "Export only rollouts that ended with a clean submit.", kOp);
  s.Add<Bool<OutputConfig>>("include_tools", &OutputConfig::include_tools, "Include tool schemas in records.", kOp);
  s.Add<Str<OutputConfig>>("tool_call_ids", &OutputConfig::tool_call_ids,
      "Tool-call ids in hf and openai records: keep the server's, or short9 (9 alphanumeric characters, "
      "unique within a record, for templates that require that length).", kOp).OneOf({"keep", "short9"});
  s.Add<Int<OutputConfig>>("max_record_tokens", &OutputConfig::max_record_tokens,
      "Leave out records longer than this many tokens, estimated as UTF-8 bytes / 4 (0 = no limit; "
      "`export --max-record-tokens N` overrides). The recipes of `configs/train/` set it to about three quarters "
      "of their sequence length, so no trainer cuts or drops a row itself.", kOp).Min(0);
  s.Add<Int<OutputConfig>>("max_patch_lines", &OutputConfig::max_patch_lines,
      "Leave out rollouts whose final patch changes more lines than this (0 = no limit).", kOp).Min(0);
  s.Add<Bool<OutputConfig>>("drop_malformed_think", &OutputConfig::drop_malformed_think,
      "Leave out rollouts with a <think> or </think> tag inside an assistant turn's reasoning or text, "
      "where a <think> wrapper would be ambiguous.", kOp);
  s.Add<Int<OutputConfig>>("max_avg_tool_output_tokens", &OutputConfig::max_avg_tool_output_tokens,
      "Leave out records whose tool results average more than this many tokens, estimated as bytes / 4 "
      "(0 = no limit).", kOp).Min(0);
  s.Add<Str<OutputConfig>>("sera_tools_file", &OutputConfig::sera_tools_file,
      "Framing file of the sera format: the block the student's chat template renders around the tool list "
      "in the system turn (header naming source: and licence:, a line of five dashes, then the text). "
      "Empty: prompts/export/sera_tools_qwen_hermes.md (Qwen2.5/Qwen3 hermes).", kOp | Flag::kPath);
  return s;
}

Section<ExportSecretsConfig> ExportSecretsSchema() {
  Section<ExportSecretsConfig> s;
  s.Add<Str<ExportSecretsConfig>>("action", &ExportSecretsConfig::action,
      "What export does with a row holding a secret: redact (replace each with <REDACTED:rule:hash8>), drop "
      "(leave the row out, counted) or report (keep it unchanged, counted and listed). See docs/SECRETS.md.", kOp)
      .OneOf({"redact", "drop", "report"});
  s.Add<StringListField<ExportSecretsConfig>>("allow", &ExportSecretsConfig::allow,
      "Strings the secret scanner lets pass, e.g. test fixtures' dummy keys: an exact string, or re: followed by "
      "an RE2 pattern matched anywhere in the found secret. Saved with the config: never list a real secret.", kOp);
  s.Add<Str<ExportSecretsConfig>>("rules_file", &ExportSecretsConfig::rules_file,
      "Secret rules (names, patterns, checks). Empty: configs/secret_rules.yaml shipped with seragen.",
      kOp | Flag::kPath);
  return s;
}

Section<ExportConfig> ExportSchema() {
  Section<ExportConfig> s;
  s.Add<SectionField<ExportConfig, ExportSecretsConfig>>("secrets", &ExportConfig::secrets,
      "Credentials in exported rows.", ExportSecretsSchema(), kOp);
  return s;
}

Section<BudgetConfig> BudgetSchema() {
  Section<BudgetConfig> s;
  s.Add<Int<BudgetConfig>>("max_tasks", &BudgetConfig::max_tasks,
      "Start no new task once the run has started this many, counted over every invocation and shard "
      "(0 = all). A task already started is still resumed.", kOp).Min(0);
  s.Add<Int<BudgetConfig>>("max_tokens", &BudgetConfig::max_tokens,
      "Dispatch nothing more once the run has used this many prompt + completion tokens, over every "
      "invocation and shard (0 = no limit).", kOp).Min(0);
  s.Add<Num<BudgetConfig>>("max_cost_usd", &BudgetConfig::max_cost_usd,
      "Dispatch nothing more once the run has cost this much (the cost ledger: each endpoint's per-token prices, "
      "llm.endpoints[].pricing else llm.pricing, over every invocation's and shard's tokens; 0 = no limit).", kOp)
      .Min(0);
  return s;
}

Section<EvalConfig> EvalSchema() {
  Section<EvalConfig> s;
  s.Add<Num<EvalConfig>>("holdout", &EvalConfig::holdout,
      "Functions held out of training for `seragen eval`, fixed when the plan is made: 0 = none, below 1 a "
      "fraction of the selected functions, a whole number >= 1 a count. Whole files (and files sharing a copied "
      "function) go to one side. See docs/EVAL.md.", kOp).Min(0).Max(1e9);
  s.Add<Int<EvalConfig>>("seeds", &EvalConfig::seeds,
      "Rollouts per held-out task in `seragen eval` (its --seeds overrides).", kOp).Min(1).Max(100);
  return s;
}

Section<Config> BuildRoot() {
  Section<Config> s;
  s.Add<SectionField<Config, RunConfig>>("run", &Config::run, "Run identity, concurrency and sharding.", RunSchema());
  s.Add<ListField<Config, RepoConfig>>("repos", &Config::repos, "Repositories to generate data from.",
                                        RepoSchema(), Flag::kRequired, 1);
  s.Add<EnvironmentField<Config>>("environment", &Config::environment,
      "Run-wide execution environment (repos[].environment overrides it). `none`: no environment.",
      EnvironmentSchema());
  s.Add<SectionField<Config, SelectionConfig>>("selection", &Config::selection,
      "Which functions become tasks, and their categories.", SelectionSchema());
  s.Add<SectionField<Config, PromptsConfig>>("prompts", &Config::prompts, "Prompt files.", PromptsSchema());
  s.Add<SectionField<Config, LlmConfig>>("llm", &Config::llm, "The teacher model and its endpoints.", LlmSchema(),
                                          Flag::kRequired);
  s.Add<SectionField<Config, AgentConfig>>("agent", &Config::agent, "Rollout limits.", AgentSchema());
  s.Add<SectionField<Config, ToolsConfig>>("tools", &Config::tools, "Agent tools.", ToolsSchema());
  s.Add<SectionField<Config, SandboxConfig>>("sandbox", &Config::sandbox, "Where agent commands run.", SandboxSchema());
  s.Add<SectionField<Config, WorkcopyConfig>>("workcopies", &Config::workcopies, "Working-copy pool.",
                                               WorkcopySchema(), kOp);
  s.Add<SectionField<Config, IssueConfig>>("issue", &Config::issue, "Synthetic issue writing.", IssueSchema());
  s.Add<SectionField<Config, JudgeConfig>>("judge", &Config::judge, "Judge of rollout 1.", JudgeSchema());
  s.Add<SectionField<Config, VerifyConfig>>("verify", &Config::verify, "Soft verification.", VerifySchema());
  s.Add<SectionField<Config, OutputConfig>>("output", &Config::output, "Export defaults.", OutputSchema(), kOp);
  s.Add<SectionField<Config, ExportConfig>>("export", &Config::export_, "What export checks in the rows it writes.",
                                             ExportSchema(), kOp);
  s.Add<SectionField<Config, BudgetConfig>>("budget", &Config::budget, "Run-wide budgets, checked before each dispatch against the journals of every shard (docs/RUN.md, "
      "\"Budgets\"); `seragen status` shows how much of each is used.",
                                             BudgetSchema(), kOp);
  s.Add<SectionField<Config, EvalConfig>>("eval", &Config::eval, "Held-out evaluation tasks (docs/EVAL.md).",
                                           EvalSchema(), kOp);
  return s;
}

// clang-format on

// YAML node at `keys` (the root when a key is absent). Walks with reset():
// assigning a yaml-cpp node would overwrite the node it refers to, here root.
YAML::Node NodeAt(const YAML::Node& root, std::initializer_list<const char*> keys) {
  YAML::Node n = root;
  for (const char* k : keys) {
    if (!n.IsMap() || !n[k]) return root;
    n.reset(n[k]);
  }
  return n;
}

// An endpoint's prices as the run uses them: llm.pricing, overlaid with the
// keys its own pricing section (`node`) gives; a kind of price it sets
// replaces the other kind of llm.pricing.
Pricing ResolveEndpointPricing(const Pricing& run, const YAML::Node& node) {
  Pricing p = run;
  auto has = [&node](const char* key) { return node.IsMap() && node[key] && !node[key].IsNull(); };
  if (has("prompt_per_mtok") || has("completion_per_mtok") || has("cached_per_mtok")) p.gpu_hour_usd = 0;
  if (has("gpu_hour_usd")) p = Pricing{.gpus_per_endpoint = run.gpus_per_endpoint};
  std::vector<ConfigIssue> ignored;  // reported when the section was parsed
  ParseContext quiet{&ignored};
  PricingSchema().Parse(node, p, "", quiet);
  return p;
}

// One price (llm.pricing, or an endpoint's resolved one at `path`) is one kind of price.
void CheckOnePricing(const Pricing& p, const std::string& path, const ParseContext& ctx, const YAML::Node& node) {
  auto at = [&node](const char* key) { return node.IsMap() && node[key] ? node[key] : node; };
  if (p.cached_per_mtok < 0 && p.cached_per_mtok != -1) {
    ctx.Add(path + ".cached_per_mtok", at("cached_per_mtok"),
            "must be >= 0, or -1 for the prompt price, got " + FormatDouble(p.cached_per_mtok));
  }
  if (p.per_gpu_hour() && (p.per_token() || p.cached_per_mtok == 0)) {
    ctx.Add(path + ".gpu_hour_usd", at("gpu_hour_usd"),
            "a GPU-hour price and per-token prices are exclusive; set " + path + ".gpu_hour_usd or the " + path +
                ".*_per_mtok prices");
  }
}

// Each price is one kind of price, and a cost limit needs prices it can
// check while the run goes: per-token prices on some endpoint and a GPU-hour
// price on none (a GPU-hour cost is known only from the endpoints' wall time).
void CheckPricing(Config& config, const ParseContext& ctx, const YAML::Node& root) {
  CheckOnePricing(config.llm.pricing, "llm.pricing", ctx, NodeAt(root, {"llm", "pricing"}));
  const YAML::Node endpoints = NodeAt(root, {"llm", "endpoints"});
  std::string gpu_priced;  // the first endpoint priced by the GPU-hour
  bool per_token = false;
  for (std::size_t i = 0; i < config.llm.endpoints.size(); ++i) {
    EndpointConfig& e = config.llm.endpoints[i];
    if (e.pricing && endpoints.IsSequence() && i < endpoints.size()) {
      const YAML::Node node = endpoints[i]["pricing"];
      e.pricing = ResolveEndpointPricing(config.llm.pricing, node);
      CheckOnePricing(*e.pricing, "llm.endpoints." + std::to_string(i) + ".pricing", ctx, node);
    }
    const Pricing& p = e.pricing ? *e.pricing : config.llm.pricing;
    per_token = per_token || p.per_token();
    if (p.per_gpu_hour() && gpu_priced.empty())
      gpu_priced = e.pricing ? "llm.endpoints." + std::to_string(i) + ".pricing" : "llm.pricing";
  }
  auto check_limit = [&](double limit, const char* section, const char* path) {
    if (limit <= 0) return;
    if (!gpu_priced.empty()) {
      ctx.Add(path, NodeAt(root, {section, "max_cost_usd"}),
              "needs per-token prices (*_per_mtok) on every endpoint: " + gpu_priced +
                  " has a GPU-hour price (gpu_hour_usd), a cost known only from the endpoints' wall time");
    } else if (!per_token) {
      ctx.Add(path, NodeAt(root, {section, "max_cost_usd"}),
              "needs per-token prices (llm.pricing.*_per_mtok, or llm.endpoints[].pricing); without them every cost "
              "is $0");
    }
  };
  check_limit(config.budget.max_cost_usd, "budget", "budget.max_cost_usd");
  check_limit(config.agent.max_cost_usd, "agent", "agent.max_cost_usd");
}

}  // namespace

const Section<Config>& RootSchema() {
  static const Section<Config>* root = new Section<Config>(BuildRoot());
  return *root;
}

void Finalize(Config& config, const ParseContext& ctx, const YAML::Node& root) {
  const YAML::Node none;
  auto node_at = [&](std::initializer_list<const char*> keys) { return NodeAt(root, keys); };
  if (config.selection.min_lines > config.selection.max_lines) {
    ctx.Add("selection.min_lines", node_at({"selection", "min_lines"}),
            "must not exceed selection.max_lines (" + std::to_string(config.selection.max_lines) + "), got " +
                std::to_string(config.selection.min_lines));
  }
  std::map<std::string, std::size_t> names;
  for (std::size_t i = 0; i < config.repos.size(); ++i) {
    RepoConfig& repo = config.repos[i];
    if (repo.name.empty() && !repo.source.empty()) {
      std::string src = repo.source;
      while (!src.empty() && src.back() == '/') src.pop_back();
      if (src.size() > 4 && src.substr(src.size() - 4) == ".git") src.resize(src.size() - 4);
      auto slash = src.find_last_of("/:");
      repo.name = slash == std::string::npos ? src : src.substr(slash + 1);
    }
    // Local sources are paths: make them absolute like other paths.
    if (!repo.source.empty() && repo.source.find("://") == std::string::npos) {
      bool from_set = ctx.overridden.count("repos." + std::to_string(i) + ".source") > 0;
      repo.source = MakeAbsolute(repo.source, from_set ? ctx.override_dir : ctx.file_dir);
    }
    auto [it, inserted] = names.emplace(repo.name, i);
    if (!inserted && !repo.name.empty()) {
      ctx.Add("repos." + std::to_string(i) + ".name", node_at({"repos"}),
              "duplicate repository name '" + repo.name + "' (also repos." + std::to_string(it->second) +
                  "); set distinct names");
    }
  }
  auto check_env = [&](const EnvironmentConfig& e, const std::string& path, const YAML::Node& node) {
    if (!e.image.empty() && !e.rootfs.empty()) {
      ctx.Add(path + ".rootfs", node,
              "image and rootfs are exclusive; set one of " + path + ".image and " + path + ".rootfs");
    }
    EnvironmentConfig only_none;
    only_none.profile = "none";
    if (e.none() && !(e == only_none)) {
      ctx.Add(path + ".profile", node, "profile none means no environment; remove the other keys of " + path);
    }
  };
  check_env(config.environment, "environment", node_at({"environment"}));
  for (std::size_t i = 0; i < config.repos.size(); ++i) {
    check_env(config.repos[i].environment, "repos." + std::to_string(i) + ".environment", node_at({"repos"}));
  }
  // The default run directory is relative to where seragen is started.
  if (!config.run.dir.empty() && config.run.dir[0] != '/') {
    config.run.dir = MakeAbsolute(config.run.dir, ctx.override_dir);
  }
  if (config.eval.holdout >= 1 &&
      config.eval.holdout != static_cast<double>(static_cast<std::int64_t>(config.eval.holdout))) {
    ctx.Add("eval.holdout", node_at({"eval", "holdout"}),
            "must be a fraction below 1 or a whole count of functions, got " + std::to_string(config.eval.holdout));
  }
  if (config.issue.demos.source == "file" && config.issue.demos.file.empty()) {
    ctx.Add("issue.demos.file", node_at({"issue", "demos"}), "required when issue.demos.source is file");
  }
  CheckPricing(config, ctx, root);
  (void)none;
}

}  // namespace seragen::config::internal
