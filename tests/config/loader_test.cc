#include "seragen/config/loader.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "config/config_test_util.h"
#include "seragen/base/file_util.h"
#include "seragen/base/log.h"
#include "testing/source_paths.h"

namespace seragen::config {
namespace {

const char* kMinimal = R"(
repos:
  - source: /srv/repos/core
llm:
  endpoints:
    - base_url: http://127.0.0.1:8000/v1
)";

LoadedConfig MustLoad(const std::string& text, LoadOptions opts = {}) {
  auto r = LoadConfigText(text, "/etc/seragen/test.yaml", opts);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("a minimal config gets every default", "[config]") {
  LoadedConfig c = MustLoad(kMinimal);
  // SERA's agent budgets and issue/judge defaults (docs/METHOD.md).
  CHECK(c.config.agent.max_model_calls == 115);  // every call counts, as SERA's call limit
  CHECK(c.config.agent.max_steps == 0);          // accepted turns: off unless set
  CHECK(c.config.agent.max_command_seconds == std::chrono::seconds(1800));
  CHECK(c.config.agent.wall_clock_s == std::chrono::hours(4));
  CHECK(c.config.agent.command_timeout_s == std::chrono::seconds(300));
  CHECK(c.config.llm.max_tokens == 0);
  CHECK(c.config.tools.output_cap_chars == 100000);
  CHECK(c.config.issue.temperature == 0.6);
  CHECK(c.config.issue.max_tokens == 4096);
  CHECK(c.config.issue.max_attempts == 10);
  CHECK(c.config.issue.demos.source == "builtin");
  CHECK(c.config.judge.enabled);
  CHECK(c.config.judge.max_attempts == 3);
  CHECK(c.config.agent.max_format_errors == 3);
  CHECK(c.config.verify.threshold == 0.5);
  CHECK(c.config.repos.size() == 1);
  CHECK(c.config.repos[0].name == "core");  // derived from source
  CHECK(c.config.repos[0].ref == "HEAD");
  CHECK(c.config.llm.endpoints[0].base_url == "http://127.0.0.1:8000/v1");
  // The default run directory is relative to the current directory...
  CHECK(c.config.run.dir == std::filesystem::current_path().string() + "/runs/seragen");
  // ...while relative paths written in the file resolve against the file's directory.
  CHECK(MustLoad(std::string(kMinimal) + "run: {dir: out}\n").config.run.dir == "/etc/seragen/out");
  CHECK(c.config_hash.size() == 64);
  CHECK(c.recipe_hash.size() == 64);
}

TEST_CASE("every bad config in the corpus fails with its exact message", "[config]") {
  auto corpus = testing::LoadBadConfigCorpus();
  REQUIRE(corpus.size() >= 20);
  for (const auto& c : corpus) {
    INFO("case " << c.path);
    REQUIRE_FALSE(c.expect.empty());
    LoadOptions opts;
    opts.overrides = c.overrides;
    std::vector<ConfigIssue> issues;
    auto r = LoadConfigFile(c.path, opts, &issues);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::kInvalidArgument);
    INFO("message: " << r.status().message());
    CHECK(r.status().message().find(c.expect) != std::string::npos);
    REQUIRE_FALSE(issues.empty());
    // The key path named by the expectation is the structured path too.
    std::string expected_path = c.expect.substr(0, c.expect.find(':'));
    if (expected_path.find(' ') == std::string::npos && expected_path.find('\'') == std::string::npos) {
      bool named = false;
      for (const auto& i : issues) named = named || i.path == expected_path;
      CHECK(named);
    }
    // Secrets pasted into a config never show up in the error.
    CHECK(r.status().message().find("sk-live") == std::string::npos);
  }
}

TEST_CASE("errors carry file, line and column", "[config]") {
  std::vector<ConfigIssue> issues;
  auto r = LoadConfigText(std::string(kMinimal) + "agent:\n  max_steps: -1\n", "cfg.yaml", {}, &issues);
  REQUIRE_FALSE(r.ok());
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].where == "cfg.yaml:8:14");
  CHECK(r.status().message() == "cfg.yaml:8:14: agent.max_steps: must be >= 0, got '-1'");
}

TEST_CASE("a key given twice is an error, not a silently dropped block", "[config]") {
  std::vector<ConfigIssue> issues;
  auto r = LoadConfigText(std::string(kMinimal) + "agent:\n  max_steps: 5\nagent:\n  max_steps: 7\n", "cfg.yaml", {},
                          &issues);
  REQUIRE_FALSE(r.ok());
  REQUIRE(issues.size() == 1);
  CHECK(r.status().message() == "cfg.yaml:9:1: agent: duplicate key (it is given twice)");
  // Nested sections too.
  auto nested = LoadConfigText(std::string(kMinimal) + "agent:\n  max_steps: 5\n  max_steps: 6\n", "cfg.yaml");
  REQUIRE_FALSE(nested.ok());
  CHECK(nested.status().message() == "cfg.yaml:9:3: agent.max_steps: duplicate key (it is given twice)");
}

TEST_CASE("all problems are reported at once", "[config]") {
  std::vector<ConfigIssue> issues;
  auto r = LoadConfigText(std::string(kMinimal) + "agent:\n  max_steps: x\n  wall_clock_s: -1\nbogus: 1\n", "cfg.yaml",
                          {}, &issues);
  REQUIRE_FALSE(r.ok());
  CHECK(issues.size() == 3);
}

TEST_CASE("hash ignores key order, whitespace and comments", "[config]") {
  std::string a = R"(
repos:
  - source: /srv/repos/core
    ref: main
llm:
  endpoints:
    - base_url: http://127.0.0.1:8000/v1
  temperature: 0.2
agent: {max_steps: 40, wall_clock_s: 600}
)";
  std::string b = R"(
# same settings, different order and layout
agent:
    wall_clock_s:   600.0
    max_steps: 40
llm:
    temperature: 0.20
    endpoints: [{base_url: "http://127.0.0.1:8000/v1"}]
repos: [{ref: main, source: /srv/repos/core}]
)";
  CHECK(MustLoad(a).config_hash == MustLoad(b).config_hash);
  CHECK(MustLoad(a).recipe_hash == MustLoad(b).recipe_hash);
  // Writing a default explicitly does not change the hash either.
  CHECK(MustLoad(a + "verify: {threshold: 0.5}\n").config_hash == MustLoad(a).config_hash);
}

TEST_CASE("durations: seconds in YAML and in the hashed JSON, milliseconds in memory", "[config][duration]") {
  LoadedConfig c = MustLoad(std::string(kMinimal) +
                            "  request_timeout_s: 0.05\n  retry: {initial_backoff_s: 0.125, total_budget_s: 1e3}\n"
                            "agent: {wall_clock_s: 7.3, command_timeout_s: 2}\nrun: {grace_period_s: 0}\n");
  CHECK(c.config.llm.request_timeout_s == std::chrono::milliseconds(50));
  CHECK(c.config.llm.retry.initial_backoff_s == std::chrono::milliseconds(125));
  CHECK(c.config.llm.retry.total_budget_s == std::chrono::milliseconds(1'000'000));
  CHECK(c.config.agent.wall_clock_s == std::chrono::milliseconds(7300));
  CHECK(c.config.agent.command_timeout_s == std::chrono::seconds(2));
  CHECK(c.config.run.grace_period_s == std::chrono::milliseconds(0));
  CHECK(MustLoad(kMinimal).config.llm.startup_wait_s == std::chrono::seconds(300));  // default
  // The hashed JSON holds the same numbers of seconds a double field did, so
  // configs written before durations existed keep their hashes.
  std::string json = CanonicalJson(c.config);
  CHECK(json.find("\"request_timeout_s\":0.05") != std::string::npos);
  CHECK(json.find("\"wall_clock_s\":7.3") != std::string::npos);
  CHECK(json.find("\"command_timeout_s\":2.0") != std::string::npos);
  CHECK(RecipeJson(c.config).find("\"wall_clock_s\":7.3") != std::string::npos);
  CHECK(RenderResolvedYaml(c).find("request_timeout_s: 0.05\n") != std::string::npos);
  // Constraints and errors speak seconds.
  auto low = LoadConfigText(std::string(kMinimal) + "agent: {wall_clock_s: 0.0004}\n", "t.yaml");
  REQUIRE_FALSE(low.ok());
  CHECK(low.status().message().find("agent.wall_clock_s: must be >= 0.001, got '0.0004'") != std::string::npos);
  auto huge = LoadConfigText(std::string(kMinimal) + "run: {grace_period_s: 1e300}\n", "t.yaml");
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.status().message().find("run.grace_period_s: expected a number of seconds, got '1e300'") !=
        std::string::npos);
}

TEST_CASE("any value change changes the hash", "[config]") {
  LoadedConfig base = MustLoad(kMinimal);
  const char* changes[] = {"agent.max_steps=99",       "verify.threshold=0.6",
                           "llm.temperature=0.7",      "selection.replicas=2",
                           "repos.0.ref=main",         "run.concurrency=9",
                           "selection.languages=[go]", "llm.extra_body={top_k: 20}",
                           "sandbox.cpu_seconds=30",   "run.seed=1"};
  for (const char* change : changes) {
    INFO(change);
    LoadOptions opts;
    opts.overrides = {change};
    CHECK(MustLoad(kMinimal, opts).config_hash != base.config_hash);
  }
}

TEST_CASE("recipe hash ignores operational settings only", "[config]") {
  LoadedConfig base = MustLoad(kMinimal);
  for (const char* op : {"run.concurrency=64", "llm.endpoints.0.base_url=http://10.0.0.9:8000/v1",
                         "budget.max_tasks=10", "run.log_level=debug", "output.think=drop"}) {
    INFO(op);
    LoadOptions opts;
    opts.overrides = {op};
    CHECK(MustLoad(kMinimal, opts).recipe_hash == base.recipe_hash);
  }
  LoadOptions opts;
  opts.overrides = {"agent.max_steps=7"};
  CHECK(MustLoad(kMinimal, opts).recipe_hash != base.recipe_hash);
}

TEST_CASE("overrides set nested keys, lists and create sections", "[config]") {
  LoadOptions opts;
  opts.overrides = {"agent.max_steps=12",
                    "selection.languages=[go, rust]",
                    "repos.0.ref=v2.1",
                    "judge.enabled=true",
                    "llm.extra_body={chat_template_kwargs: {enable_thinking: false}}",
                    "run.dir=out/run1"};
  opts.override_base_dir = "/home/me/work";
  LoadedConfig c = MustLoad(kMinimal, opts);
  CHECK(c.config.agent.max_steps == 12);
  CHECK(c.config.selection.languages == std::vector<std::string>{"go", "rust"});
  CHECK(c.config.repos[0].ref == "v2.1");
  CHECK(c.config.judge.enabled);
  CHECK(c.config.llm.extra_body == R"({"chat_template_kwargs":{"enable_thinking":false}})");
  CHECK(c.config.run.dir == "/home/me/work/out/run1");  // --set paths: current directory
}

TEST_CASE("secrets are references, resolved from the environment, never printed", "[config]") {
  LoadedConfig c = MustLoad(std::string(kMinimal) + "  api_key: ${SERAGEN_TEST_KEY}\n");
  CHECK(c.config.llm.api_key.env_var == "SERAGEN_TEST_KEY");
  ::setenv("SERAGEN_TEST_KEY", "sk-test-0123456789abcdef", 1);
  auto value = ResolveSecret(c.config.llm.api_key, "llm.api_key");
  REQUIRE(value.ok());
  CHECK(*value == "sk-test-0123456789abcdef");
  std::string yaml = RenderResolvedYaml(c);
  CHECK(yaml.find("${SERAGEN_TEST_KEY}") != std::string::npos);
  CHECK(yaml.find("sk-test-0123456789abcdef") == std::string::npos);
  // The key is registered: logs redact it.
  std::string captured;
  {
    log::ScopedCapture cap(&captured);
    log::Logger("test").Info("header Authorization: Bearer sk-test-0123456789abcdef");
  }
  CHECK(captured.find("sk-test") == std::string::npos);
  ::unsetenv("SERAGEN_TEST_KEY");
  auto missing = ResolveSecret(c.config.llm.api_key, "llm.api_key");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message() == "llm.api_key: environment variable SERAGEN_TEST_KEY is not set");
  // Secrets are not part of the hash: rotating the variable name keeps it.
  CHECK(MustLoad(std::string(kMinimal) + "  api_key: ${OTHER_KEY}\n").config_hash == c.config_hash);
}

TEST_CASE("endpoint headers: values are secrets, never rendered or hashed", "[config][headers]") {
  const std::string text = R"(
repos:
  - source: /srv/repos/core
llm:
  endpoints:
    - base_url: http://127.0.0.1:8000/v1
      headers: {X-Tenant: literal-tenant-secret, X-Gateway-Token: "${SERAGEN_TEST_GATEWAY}"}
)";
  LoadedConfig c = MustLoad(text);
  const auto& h = c.config.llm.endpoints.at(0).headers;
  REQUIRE(h.size() == 2);
  CHECK(h[0].name == "X-Tenant");
  CHECK(h[0].value == "literal-tenant-secret");
  CHECK(h[1].value == "${SERAGEN_TEST_GATEWAY}");
  std::string yaml = RenderResolvedYaml(c);  // what the run directory keeps
  CHECK(yaml.find("literal-tenant-secret") == std::string::npos);
  CHECK(yaml.find("${SERAGEN_TEST_GATEWAY}") != std::string::npos);
  CHECK(CanonicalJson(c.config).find("literal-tenant-secret") == std::string::npos);
  CHECK(RecipeJson(c.config).find("X-Tenant") == std::string::npos);
  // Changing a header value does not change the hash (operational, secret).
  std::string other = text;
  other.replace(other.find("literal-tenant-secret"), 21, "another-tenant-value!");
  CHECK(MustLoad(other).config_hash == c.config_hash);
  // A bad header name is refused without echoing values.
  auto bad = LoadConfigText(std::string(kMinimal) + "      headers: {\"bad name\": s3cr3t-value}\n", "/etc/x.yaml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("s3cr3t-value") == std::string::npos);
}

TEST_CASE("server profile keys take only known values", "[config][headers]") {
  LoadedConfig c = MustLoad(kMinimal);
  CHECK(c.config.llm.server == "auto");
  CHECK(c.config.llm.max_tokens_field == "auto");
  CHECK(c.config.llm.config_error_limit == 3);
  auto bad = LoadConfigText(std::string(kMinimal) + "  server: tgi\n", "/etc/x.yaml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("llm.server") != std::string::npos);
}

TEST_CASE("the rendered YAML loads back to the same config", "[config]") {
  LoadOptions opts;
  opts.overrides = {"agent.max_steps=77", "llm.extra_body={top_k: 20, note: \"yes\"}", "run.name=\"123\""};
  LoadedConfig c = MustLoad(std::string(kMinimal) + "  api_key: ${SOME_KEY}\n", opts);
  std::string yaml = RenderResolvedYaml(c);
  LoadedConfig again = MustLoad(yaml);
  CHECK(again.config_hash == c.config_hash);
  CHECK(again.config.llm.api_key.env_var == "SOME_KEY");
  CHECK(again.config.run.name == "123");
}

namespace {

using testing::FakeEnv;

const char* kInterpolated = R"(
run:
  name: ${RUN_NAME:-cluster-run}
  dir: ${SCRATCH}/seragen/run1
workcopies:
  dir: ${TMPDIR:-/tmp}/seragen
repos:
  - source: ${SCRATCH}/repos/core
selection:
  languages: [python, "${EXTRA_LANG:-go}"]
llm:
  api_key: ${OPENAI_API_KEY}
  endpoints:
    - base_url: http://${HEAD_NODE:-127.0.0.1}:8000/v1
)";

}  // namespace

TEST_CASE("${VAR} and ${VAR:-default} expand in every string value", "[config][interpolate]") {
  LoadOptions opts;
  opts.env = FakeEnv({{"SCRATCH", "/scratch/u1"}, {"HEAD_NODE", "gpu07"}, {"OPENAI_API_KEY", "sk-live-secret"}});
  LoadedConfig c = MustLoad(kInterpolated, opts);
  CHECK(c.config.run.name == "cluster-run");
  CHECK(c.config.run.dir == "/scratch/u1/seragen/run1");
  CHECK(c.config.workcopies.dir == "/tmp/seragen");
  CHECK(c.config.repos[0].source == "/scratch/u1/repos/core");
  CHECK(c.config.repos[0].name == "core");
  CHECK(c.config.selection.languages == std::vector<std::string>{"python", "go"});
  CHECK(c.config.llm.endpoints[0].base_url == "http://gpu07:8000/v1");
  // A secret field keeps the reference; its value is never read at load time.
  CHECK(c.config.llm.api_key.env_var == "OPENAI_API_KEY");
  std::string yaml = RenderResolvedYaml(c);
  CHECK(yaml.find("sk-live-secret") == std::string::npos);
  CHECK(yaml.find("${OPENAI_API_KEY}") != std::string::npos);
  // The saved config holds the expanded values and loads back without the environment.
  CHECK(yaml.find("/scratch/u1/seragen/run1") != std::string::npos);
  LoadOptions bare;
  bare.env = FakeEnv({});
  auto again = LoadConfigText(yaml, "/runs/config.yaml", bare);
  INFO(again.status().ToString());
  REQUIRE(again.ok());
  CHECK(again->config_hash == c.config_hash);
}

TEST_CASE("a relative path made by interpolation resolves against the config file", "[config][interpolate]") {
  LoadOptions opts;
  opts.env = FakeEnv({{"RUNS", "runs"}});
  LoadedConfig c = MustLoad(std::string(kMinimal) + "run:\n  dir: ${RUNS}/r1\n", opts);
  CHECK(c.config.run.dir == "/etc/seragen/runs/r1");
}

TEST_CASE("an unset variable without a default is an error naming the key path", "[config][interpolate]") {
  LoadOptions opts;
  opts.env = FakeEnv({});
  std::vector<ConfigIssue> issues;
  auto r = LoadConfigText(kInterpolated, "/etc/seragen/test.yaml", opts, &issues);
  REQUIRE_FALSE(r.ok());
  std::set<std::string> paths;
  for (const auto& i : issues) paths.insert(i.path);
  CHECK(paths == std::set<std::string>{"run.dir", "repos.0.source"});
  CHECK(r.status().message().find("run.dir: environment variable SCRATCH is not set") != std::string::npos);
  // A list element is named by its index.
  auto list = LoadConfigText(std::string(kMinimal) + "selection:\n  languages: [python, \"${LANG2}\"]\n",
                             "/etc/seragen/test.yaml", opts, &issues);
  REQUIRE_FALSE(list.ok());
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].path == "selection.languages.1");
}

TEST_CASE("secret fields still refuse literals and defaults", "[config][interpolate]") {
  LoadOptions opts;
  opts.env = FakeEnv({{"KEY", "sk-1"}});
  auto literal = LoadConfigText(std::string(kMinimal) + "  api_key: sk-pasted\n", "t.yaml", opts);
  REQUIRE_FALSE(literal.ok());
  CHECK(literal.status().message().find("sk-pasted") == std::string::npos);
  // ${VAR:-literal} would smuggle a literal secret into the file.
  CHECK_FALSE(LoadConfigText(std::string(kMinimal) + "  api_key: ${KEY:-sk-default}\n", "t.yaml", opts).ok());
}

TEST_CASE("a different ${SCRATCH} for the run directory keeps the recipe hash", "[config][interpolate]") {
  const std::string text = std::string(kMinimal) + "run:\n  dir: ${SCRATCH}/run1\nworkcopies:\n  dir: ${SCRATCH}/wc\n";
  LoadOptions a, b;
  a.env = FakeEnv({{"SCRATCH", "/scratch/a"}});
  b.env = FakeEnv({{"SCRATCH", "/lustre/b"}});
  LoadedConfig ca = MustLoad(text, a), cb = MustLoad(text, b);
  CHECK(ca.config.run.dir != cb.config.run.dir);
  CHECK(ca.recipe_hash == cb.recipe_hash);
  CHECK(ca.config_hash != cb.config_hash);
}

TEST_CASE("docs/CONFIG.md is generated from the schema and up to date", "[config]") {
  std::string expected = RenderReferenceMarkdown();
  auto on_disk = ReadFile(seragen::testing::SourcePath("docs/CONFIG.md"));
  REQUIRE(on_disk.ok());
  INFO("regenerate with: build/seragen config docs > docs/CONFIG.md");
  CHECK(*on_disk == expected);
  // Every section and a few keys are documented.
  for (const char* key : {"`run.seed`", "`repos[].source`", "`llm.endpoints[].api_key`", "`agent.max_steps`",
                          "`sandbox.mode`", "`verify.threshold`", "`output.formats`", "`budget.max_tasks`",
                          "`selection.categories.mode`", "`issue.demos.source`"}) {
    CHECK(expected.find(key) != std::string::npos);
  }
}

TEST_CASE("the shipped SERA profile is valid and sets SERA's values", "[config]") {
  auto r = LoadConfigFile(seragen::testing::SourcePath("configs/sera.yaml"));
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  const Config& c = r->config;
  CHECK(c.selection.languages == std::vector<std::string>{"python"});
  CHECK(c.selection.min_lines == 1);
  CHECK(c.selection.max_lines >= 1000000);  // no size filter
  CHECK(c.tools.file.ends_with("/configs/tools-sweagent.yaml"));
  CHECK(c.sandbox.mount_point == "/testbed");
  CHECK(c.agent.max_model_calls == 115);
  CHECK(c.agent.max_command_seconds == std::chrono::seconds(1800));
  CHECK(c.agent.max_steps == 0);
  CHECK(c.selection.max_folder_depth == 3);
  CHECK(c.verify.threshold == 0.5);
  CHECK(c.output.formats == std::vector<std::string>{"sera"});
  CHECK(c.judge.temperature == 0.6);  // SERA samples its judge like the issue writer
  CHECK(c.judge.max_attempts == 3);
  CHECK(Config{}.judge.temperature == 0.6);  // and so does the default
}

TEST_CASE("the shipped demo config is valid", "[config]") {
  auto r = LoadConfigFile(seragen::testing::SourcePath("configs/demo.yaml"));
  INFO(r.status().ToString());
  CHECK(r.ok());
}

TEST_CASE("export.secrets defaults to redact with no allow-list and the shipped rules", "[config]") {
  LoadedConfig c = MustLoad(kMinimal);
  CHECK(c.config.export_.secrets.action == "redact");
  CHECK(c.config.export_.secrets.allow.empty());
  CHECK(c.config.export_.secrets.rules_file.empty());
}

TEST_CASE("export.secrets keys are read, and leave the recipe hash alone", "[config]") {
  LoadedConfig base = MustLoad(kMinimal);
  LoadedConfig c = MustLoad(std::string(kMinimal) + R"(
export:
  secrets:
    action: drop
    allow: [dummy-key-for-tests, 're:^sk_test_']
    rules_file: rules/secrets.yaml
)");
  CHECK(c.config.export_.secrets.action == "drop");
  CHECK(c.config.export_.secrets.allow == std::vector<std::string>{"dummy-key-for-tests", "re:^sk_test_"});
  CHECK(c.config.export_.secrets.rules_file == "/etc/seragen/rules/secrets.yaml");
  CHECK(c.recipe_hash == base.recipe_hash);
  CHECK(c.config_hash != base.config_hash);
}

}  // namespace seragen::config

namespace seragen::config {

TEST_CASE("run.concurrency: auto by default, a count, or auto again, saved as written", "[config]") {
  LoadedConfig defaults = MustLoad(kMinimal);
  CHECK(defaults.config.run.concurrency == 0);  // auto
  CHECK(CanonicalJson(defaults.config).find("\"concurrency\":\"auto\"") != std::string::npos);
  LoadOptions fixed;
  fixed.overrides = {"run.concurrency=12"};
  LoadedConfig twelve = MustLoad(kMinimal, fixed);
  CHECK(twelve.config.run.concurrency == 12);
  CHECK(CanonicalJson(twelve.config).find("\"concurrency\":12") != std::string::npos);
  LoadedConfig again = MustLoad(std::string(kMinimal) + "run: {concurrency: auto}\n");
  CHECK(again.config.run.concurrency == 0);
  for (const char* bad : {"Auto", "0", "-3", "2.5"}) {
    INFO(bad);
    auto r = LoadConfigText(std::string(kMinimal) + "run: {concurrency: " + bad + "}\n", "t.yaml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("run.concurrency") != std::string::npos);
  }
}

}  // namespace seragen::config

namespace seragen::config {

TEST_CASE("an endpoint's pricing takes the keys it leaves out from llm.pricing and survives the saved config",
          "[config]") {
  const std::string text = std::string(kMinimal) +  // its endpoint, then two more
                           "      pricing: {gpu_hour_usd: 2.5}\n"
                           "    - base_url: https://api.example/v1\n"
                           "      pricing: {completion_per_mtok: 12}\n"
                           "    - base_url: https://other.example/v1\n"
                           "  pricing: {prompt_per_mtok: 3, completion_per_mtok: 15, cached_per_mtok: 0.3, "
                           "gpus_per_endpoint: 2}\n";
  LoadedConfig c = MustLoad(text);
  const std::vector<EndpointConfig>& e = c.config.llm.endpoints;
  REQUIRE(e.size() == 3);
  REQUIRE(e[0].pricing);  // a GPU-hour price replaces the per-token kind, keeps the GPUs per endpoint
  CHECK(e[0].pricing->gpu_hour_usd == 2.5);
  CHECK_FALSE(e[0].pricing->per_token());
  CHECK(e[0].pricing->gpus_per_endpoint == 2);
  REQUIRE(e[1].pricing);  // one per-token key set: the others inherited
  CHECK(e[1].pricing->prompt_per_mtok == 3);
  CHECK(e[1].pricing->completion_per_mtok == 12);
  CHECK(e[1].pricing->cached_per_mtok == 0.3);
  CHECK_FALSE(e[2].pricing);  // none: llm.pricing
  // The saved config (what the run directory keeps) loads to the same prices and hash.
  LoadedConfig again = MustLoad(RenderResolvedYaml(c));
  REQUIRE(again.config.llm.endpoints[1].pricing);
  CHECK(again.config.llm.endpoints[1].pricing->completion_per_mtok == 12);
  CHECK(again.config.llm.endpoints[0].pricing->gpu_hour_usd == 2.5);
  CHECK_FALSE(again.config.llm.endpoints[2].pricing);
  CHECK(again.config_hash == c.config_hash);
  // An endpoint without a pricing section adds nothing to the hash of a config.
  CHECK(CanonicalJson(MustLoad(kMinimal).config).find("pricing\":{") ==
        CanonicalJson(MustLoad(kMinimal).config).rfind("pricing\":{"));
}

}  // namespace seragen::config
