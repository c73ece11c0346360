// End-to-end against the scripted teacher in its strict server modes: the
// matching profile sends only accepted requests; a wrong one stops the run
// after at most config_error_limit (3) model calls with exit code 2; and the
// exit codes of `seragen run` (0, 3, 1, 75).
#include <stdlib.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "integration/pipeline/harness.h"
#include "seragen/base/file_util.h"

namespace seragen::e2e {
namespace {

using nlohmann::json;

struct ChatLog {
  std::size_t chat = 0;      // chat completion requests (any answer)
  std::size_t rejected = 0;  // refused by the strict mode
};

ChatLog ReadChatLog(const std::string& path) {
  ChatLog log;
  for (const std::string& line : ReadLines(path)) {
    json j = json::parse(line);
    std::string kind = j["kind"];
    if (kind == "models" || kind == "health") continue;
    ++log.chat;
    if (j["fault"] == "rejected") ++log.rejected;
  }
  return log;
}

// The harness config with llm settings added (and the model id replaced).
std::string Config(const testing::TempDir& dir, const std::string& url, const std::string& llm_lines,
                   const std::string& model = "", const std::string& extra = "") {
  std::string path = WriteConfig(dir, dir.Sub("repo"), url, extra);
  std::string text = *ReadFile(path);
  if (!model.empty()) {
    const std::string from = "model: 'seragen-scripted-teacher (not a model)'";
    text.replace(text.find(from), from.size(), "model: '" + model + "'");
  }
  const std::string anchor = "  request_timeout_s: 5\n";
  text.replace(text.find(anchor), anchor.size(), anchor + llm_lines);
  dir.Write("config.yaml", text);
  return path;
}

int Run(const std::string& cfg, std::string* out) {
  return testing::RunShell(Binary() + " run -c " + cfg + " 2>&1", out);
}

json StatusOf(const std::string& run_dir) {
  std::string out;
  REQUIRE(testing::RunShell(Binary() + " status " + run_dir + " --json", &out) == 0);
  return json::parse(out);
}

// A run on a small Python repository against a teacher started with
// `teacher_flags`, configured with `llm_lines` (and `model`), must stop with
// exit 2 (a configuration error), its output naming each of `says`, after at
// most three chat requests. Returns the teacher's log of them.
ChatLog ExpectConfigurationStop(const std::string& teacher_flags, const std::string& llm_lines,
                                const std::string& model, std::initializer_list<const char*> says) {
  testing::TempDir dir;
  MakePythonRepo(dir.Sub("repo"));
  TeacherProcess teacher(dir, teacher_flags);
  std::string cfg = Config(dir, teacher.url(), llm_lines, model);
  std::string out;
  int rc = Run(cfg, &out);
  INFO(out);
  CHECK(rc == 2);
  for (const char* text : says) CHECK(out.find(text) != std::string::npos);
  // The stop's class decided the exit; its words reach the terminal and
  // summary.json without the class written into them.
  const std::size_t stopped = out.find("seragen run: stopped: ");
  REQUIRE(stopped != std::string::npos);
  CHECK(out.substr(stopped, out.find('\n', stopped) - stopped).find("[llm:") == std::string::npos);
  const json summary = json::parse(*ReadFile(dir.Sub("run") + "/shard-0/summary.json"));
  CHECK(summary["config_stop"].get<std::string>().rfind("the endpoint rejected the same request", 0) == 0);
  ChatLog log = ReadChatLog(dir.Sub("requests.jsonl"));
  CHECK(log.chat <= 3);
  return log;
}

}  // namespace

TEST_CASE("each strict server mode with its profile: every task finishes, nothing is rejected", "[e2e][servers]") {
  struct Mode {
    const char* validate;
    const char* teacher_args;
    const char* server;  // llm.server
    const char* model;
  };
  const Mode modes[] = {
      {"vllm", "", "vllm", ""},
      {"sglang", "", "sglang", ""},
      {"llamacpp", "", "auto", ""},  // detected from the Server header
      {"openai", "--model-id o3-mini", "openai", "o3-mini"},
  };
  for (const Mode& m : modes) {
    DYNAMIC_SECTION(m.validate) {
      testing::TempDir dir;
      MakePythonRepo(dir.Sub("repo"));
      TeacherProcess teacher(dir, std::string("--seed 3 --validate ") + m.validate + " " + m.teacher_args);
      std::string cfg = Config(dir, teacher.url(), std::string("  server: ") + m.server + "\n", m.model);
      std::string out;
      int rc = Run(cfg, &out);
      INFO(out);
      CHECK(rc == 0);
      json st = StatusOf(dir.Sub("run"));
      CHECK(st["planned"].get<int>() > 0);
      CHECK(st["finished"] == st["planned"]);
      CHECK(st["result"] == "complete");
      ChatLog log = ReadChatLog(dir.Sub("requests.jsonl"));
      CHECK(log.chat > 0);
      CHECK(log.rejected == 0);
      if (std::string(m.server) == "auto") CHECK(out.find("server llamacpp") != std::string::npos);
    }
  }
}

TEST_CASE("wrong profile on purpose: max_tokens against an OpenAI reasoning model stops the run with exit 2",
          "[e2e][servers]") {
  // llm.max_tokens set: by default no completion cap is sent at all.
  ChatLog log =
      ExpectConfigurationStop("--seed 3 --validate openai --model-id o3-mini",
                              "  server: openai\n  max_tokens: 1024\n  max_tokens_field: max_tokens\n", "o3-mini",
                              {"'max_tokens' is not supported with this model", "llm.max_tokens_field"});
  CHECK(log.rejected == log.chat);
}

TEST_CASE("wrong profile on purpose: tools against llama.cpp without --jinja stops the run with exit 2",
          "[e2e][servers]") {
  // A 500 that is a configuration error is not retried either.
  ExpectConfigurationStop("--seed 3 --validate llamacpp --no-jinja", "  server: llamacpp\n", "",
                          {"tools param requires --jinja flag", "--jinja (docs/SERVERS.md)"});
}

TEST_CASE("llm ping prints the detected server and the settings a run will use", "[e2e][servers]") {
  testing::TempDir dir;
  MakePythonRepo(dir.Sub("repo"));
  TeacherProcess teacher(dir, "--validate llamacpp");
  std::string cfg = Config(dir, teacher.url(), "  max_tokens_field: max_completion_tokens\n");
  std::string out;
  REQUIRE(testing::RunShell(Binary() + " llm ping -c " + cfg + " 2>&1", &out) == 0);
  INFO(out);
  CHECK(out.find("profile    llamacpp (detected: Server: llama.cpp header)") != std::string::npos);
  CHECK(out.find("max tokens field    max_completion_tokens") != std::string::npos);  // the explicit setting wins
  CHECK(out.find("reasoning in history reasoning_content") != std::string::npos);     // the profile's default
  REQUIRE(testing::RunShell(Binary() + " llm ping --base-url " + teacher.url() + " 2>&1", &out) == 0);
  CHECK(out.find("max tokens field    max_tokens") != std::string::npos);
}

TEST_CASE("exit codes of seragen run: 3 when tasks remain, 1 when nothing succeeded, 75 when interrupted",
          "[e2e][servers][exit]") {
  testing::TempDir dir;
  MakePythonRepo(dir.Sub("repo"));
  SECTION("3: a budget stop leaves planned tasks for a rerun, which finishes them (0)") {
    TeacherProcess teacher(dir, "--seed 3");
    std::string cfg = Config(dir, teacher.url(), "", "", "budget: {max_tasks: 2}\n");
    std::string out;
    CHECK(Run(cfg, &out) == 3);
    CHECK(StatusOf(dir.Sub("run"))["result"] == "incomplete");
    // Without the budget the rest is done.
    std::string full = Config(dir, teacher.url(), "");
    CHECK(Run(full, &out) == 0);
    CHECK(StatusOf(dir.Sub("run"))["result"] == "complete");
  }
  SECTION("1: every task fails as an infrastructure failure") {
    TeacherProcess teacher(dir, "--seed 3 --validate openai --model-id o3-mini");
    // The configuration error never reaches the stop limit: each task fails.
    std::string cfg =
        Config(dir, teacher.url(), "  server: openai\n  max_tokens_field: max_tokens\n  config_error_limit: 1000\n",
               "o3-mini");
    std::string out;
    int rc = Run(cfg, &out);
    INFO(out);
    CHECK(rc == 1);
    json st = StatusOf(dir.Sub("run"));
    CHECK(st["result"] == "nothing_succeeded");
    CHECK(st["finished"] == 0);
  }
  SECTION("75: SIGTERM") {
    TeacherProcess teacher(dir, "--seed 3 --latency fixed:400");
    std::string cfg = Config(dir, teacher.url(), "");
    std::string out;
    CHECK(testing::RunShell("timeout --preserve-status -s TERM 2 " + Binary() + " run -c " + cfg + " 2>&1", &out) ==
          75);
  }
}

}  // namespace seragen::e2e

namespace seragen::e2e {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A Python repository and the scripted teacher (started with `args`) in a temp dir.
struct TeacherWorld {
  testing::TempDir dir;
  TeacherProcess teacher;
  explicit TeacherWorld(const std::string& args = "--seed 3") : teacher(dir.path(), args, dir.Sub("requests.jsonl")) {
    MakePythonRepo(dir.Sub("repo"));
    REQUIRE_FALSE(teacher.url().empty());
  }
};

// The first exported T1 record's metadata.
json FirstT1Metadata(const std::string& run_dir) {
  std::string out;
  REQUIRE(testing::RunShell(Binary() + " export " + run_dir + " 2>&1", &out) == 0);
  std::vector<std::string> lines = ReadLines(run_dir + "/data/t1.hf.jsonl");
  REQUIRE_FALSE(lines.empty());
  return json::parse(lines.front())["metadata"];
}

}  // namespace

TEST_CASE("an endpoint that answers 404 or 401 is a configuration error: exit 2 within seconds",
          "[e2e][servers][startup]") {
  ::setenv("SERAGEN_E2E_TEACHER_KEY", "right-key", 1);
  ::setenv("SERAGEN_E2E_WRONG_KEY", "wrong-key", 1);
  TeacherWorld w("--seed 3 --api-key-env SERAGEN_E2E_TEACHER_KEY");
  std::string url = w.teacher.url(), cfg;
  std::vector<std::string> expected;
  SECTION("404: a wrong URL path") {
    url.replace(url.rfind("/v1"), 3, "/wrong/v1");
    cfg = WriteConfig(w.dir, w.dir.Sub("repo"), url, "");
    expected = {"GET " + url + "/models", "HTTP 404", "fix llm.endpoints[0].base_url"};
  }
  SECTION("401: a wrong key") {
    cfg = Config(w.dir, url, "  api_key: ${SERAGEN_E2E_WRONG_KEY}\n");
    expected = {"GET " + url + "/models", "HTTP 401", "fix llm.api_key"};
  }
  // llm.startup_wait_s stays at its 300 s default: a refusal must not be waited out.
  std::string out;
  auto start = std::chrono::steady_clock::now();
  int rc = Run(cfg, &out);
  INFO(out);
  CHECK(SecondsSince(start) < 10);
  CHECK(rc == 2);
  for (const std::string& e : expected) CHECK(out.find(e) != std::string::npos);
  CHECK(out.find("wrong-key") == std::string::npos);  // the secret stays out
}

TEST_CASE("the model id: one the endpoint does not list stops the run (exit 2), records name the served one",
          "[e2e][servers][startup]") {
  TeacherWorld w;
  std::string out;
  SECTION("not listed: exit 2 naming the served ids, before any chat request") {
    std::string cfg = Config(w.dir, w.teacher.url(), "", "no-such-model");
    CHECK(Run(cfg, &out) == 2);
    INFO(out);
    CHECK(out.find("llm.model 'no-such-model' is not served") != std::string::npos);
    CHECK(out.find("seragen-scripted-teacher (not a model)") != std::string::npos);
    CHECK(out.find("llm.allow_unlisted_model") != std::string::npos);
    CHECK(ReadChatLog(w.dir.Sub("requests.jsonl")).chat == 0);
    CHECK(testing::RunShell(Binary() + " llm ping -c " + cfg + " 2>&1", &out) == 2);
    CHECK(out.find("'no-such-model' is NOT listed") != std::string::npos);
  }
  SECTION("a gateway alias the list does not name: records carry the id the answers report") {
    std::string cfg = Config(w.dir, w.teacher.url(), "  allow_unlisted_model: true\n", "gateway-alias");
    CHECK(Run(cfg, &out) == 0);
    INFO(out);
    json meta = FirstT1Metadata(w.dir.Sub("run"));
    CHECK(meta["model"] == "seragen-scripted-teacher (not a model)");
    CHECK(meta["scripted_teacher"] == true);
  }
}

TEST_CASE("llm ping checks that tool calling works with one small request", "[e2e][servers][startup]") {
  TeacherWorld w;
  std::string out;
  REQUIRE(testing::RunShell(Binary() + " llm ping --base-url " + w.teacher.url() + " 2>&1", &out) == 0);
  INFO(out);
  CHECK(out.find("tool call  works: ") != std::string::npos);
  CHECK(out.find("answered by model 'seragen-scripted-teacher (not a model)'") != std::string::npos);
  CHECK(ReadChatLog(w.dir.Sub("requests.jsonl")).chat == 1);
}

TEST_CASE("budgets cover the whole run: every invocation and every shard", "[e2e][servers][budget]") {
  TeacherWorld w;
  const testing::TempDir& dir = w.dir;
  TeacherProcess& teacher = w.teacher;
  std::string cfg = Config(dir, teacher.url(), "", "", "budget: {max_tasks: 2}\n");
  std::string out;
  SECTION("a rerun with the same budget starts nothing new") {
    CHECK(Run(cfg, &out) == 3);
    CHECK(Run(cfg, &out) == 3);
    INFO(out);
    CHECK(out.find("budget.max_tasks reached (run-wide: 2 of 2 tasks started)") != std::string::npos);
    json st = StatusOf(dir.Sub("run"));
    CHECK(st["started"] == 2);
    CHECK(st["budget"]["tasks_used"] == 2);
    REQUIRE(testing::RunShell(Binary() + " status " + dir.Sub("run"), &out) == 0);
    CHECK(out.find("budget     tasks 2/2 (100%) used (run-wide)") != std::string::npos);
  }
  SECTION("the second shard sees what the first spent") {
    CHECK(testing::RunShell(Binary() + " run -c " + cfg + " --shard 0/2 2>&1", &out) == 3);
    CHECK(testing::RunShell(Binary() + " run -c " + cfg + " --shard 1/2 2>&1", &out) == 3);
    INFO(out);
    CHECK(StatusOf(dir.Sub("run"))["started"] == 2);
  }
}

}  // namespace seragen::e2e
