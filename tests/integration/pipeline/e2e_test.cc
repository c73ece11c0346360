// End-to-end: the real binary against the scripted teacher over loopback,
// on repositories created here. Slow-ish (seconds each): label "e2e".
#include <signal.h>
#include <unistd.h>

#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/pipeline/harness.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/base/file_util.h"
#include "seragen/base/rng.h"
#include "seragen/journal/journal_reader.h"
#include "seragen/repo/repository.h"
#include "seragen/verify/scores.h"
#include "testing/source_paths.h"

namespace seragen::e2e {
namespace {

using nlohmann::json;

std::vector<agent::Trajectory> Trajectories(const std::string& run_dir) {
  std::vector<agent::Trajectory> out;
  std::string dir = run_dir + "/shard-0/trajectories";
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    auto t = agent::TrajectoryFromJson(*ReadFile(e.path().string()));
    REQUIRE(t.ok());
    out.push_back(std::move(*t));
  }
  return out;
}

json Status(const std::string& run_dir) {
  std::string out;
  REQUIRE(testing::RunShell(Binary() + " status " + run_dir + " --json", &out) == 0);
  return json::parse(out);
}

void CheckExport(const std::string& run_dir, const std::string& format, bool expect_records) {
  std::string out;
  REQUIRE(testing::RunShell(Binary() + " export " + run_dir + " --format " + format, &out) == 0);
  std::size_t records = 0;
  std::set<std::string> ids;
  for (const char* which : {"t1", "t2"}) {
    for (const std::string& line : ReadLines(run_dir + "/data/" + which + "." + format + ".jsonl")) {
      json rec = json::parse(line);
      ++records;
      REQUIRE(rec["messages"].size() >= 4);
      CHECK(rec["messages"][0]["role"] == "system");
      // sera records keep the submit call's result as their last (user) turn, as SERA's do.
      CHECK(rec["messages"].back()["role"] == (format == "sera" ? "user" : "assistant"));
      CHECK(rec["metadata"]["scripted_teacher"] == true);
      CHECK(rec["metadata"]["run"] == "seragen");  // run.name (the default) of the saved config
      CHECK(rec["metadata"]["exit_status"] == "submitted");
      CHECK(ids.insert(std::string(which) + rec["metadata"]["task_id"].get<std::string>()).second);
    }
  }
  if (expect_records) CHECK(records > 0);
}

// The records of one export pass an acceptance script of tests/export/js:
// render_test.mjs for hf (chat templates, one schema across T1 and T2),
// sera_chatml_test.mjs for sera (ChatML with axolotl's train-key rule).
void CheckRenders(const std::string& run_dir, const std::string& script, const std::string& format) {
  std::string out;
  std::string js = seragen::testing::SourcePath("tests/export/js");
  int rc = testing::RunShell("cd " + js + " && node " + script + " " + run_dir + "/data/t1." + format + ".jsonl " +
                                 run_dir + "/data/t2." + format + ".jsonl",
                             &out);
  INFO(out);
  CHECK(rc == 0);
}

// The text format (hermes or xml) equals what that family's chat template
// (tests/export/js) renders from the hf records of the same export, with
// reasoning kept apart (the default) and wrapped in <think> (--think wrap).
void CheckTextMatchesTemplate(const std::string& run_dir, const std::string& format) {
  std::string out;
  const std::string js = seragen::testing::SourcePath("tests/export/js");
  auto compare = [&](const std::string& dir) {
    int rc = testing::RunShell("cd " + js + " && node render_test.mjs --compare-" + format + " " + dir +
                                   "/t2.hf.jsonl " + dir + "/t2." + format + ".jsonl",
                               &out);
    INFO(out);
    CHECK(rc == 0);
  };
  compare(run_dir + "/data");
  const std::string wrap = run_dir + "/data-wrap";
  for (const std::string& f : {std::string("hf"), format}) {
    REQUIRE(testing::RunShell(Binary() + " export " + run_dir + " --format " + f + " --think wrap --out " + wrap,
                              &out) == 0);
  }
  compare(wrap);
}

// The trainer recipes of configs/train/ followed on a fresh export: axolotl
// and TRL render every call of the hf rows with exactly its arguments; per
// family, each trainer's own rules train exactly each assistant turn
// (axolotl_test.mjs, llamafactory_test.mjs, py/trl_recipe_test.py); T1 and T2
// load together as datasets' JSON builder loads them.
void CheckRecipes(const std::string& run_dir) {
  std::string out;
  const std::string js = seragen::testing::SourcePath("tests/export/js");
  const std::string data = run_dir + "/data", drop = run_dir + "/data-drop";
  REQUIRE(testing::RunShell(Binary() + " export " + run_dir + " --format sharegpt", &out) == 0);
  for (const char* format : {"hf", "sharegpt"}) {  // the export of Llama 3.1, Mistral, GLM-4 students
    REQUIRE(testing::RunShell(Binary() + " export " + run_dir + " --format " + format + " --think drop --out " + drop,
                              &out) == 0);
  }
  const std::string hf = data + "/t1.hf.jsonl " + data + "/t2.hf.jsonl";
  std::vector<std::string> commands = {
      "node recipes_test.mjs --axolotl-hf " + hf,
      "./trl_path_test.sh " + data + "/t2.hf.jsonl " + run_dir + "/trl-path",
      "node recipes_test.mjs --llamafactory " + data + "/t2.sharegpt.jsonl " + data + "/t2.hf.jsonl",
      "node datasets_load_test.mjs " + hf,
      "node datasets_load_test.mjs " + data + "/t1.sharegpt.jsonl " + data + "/t2.sharegpt.jsonl",
      "node axolotl_test.mjs --family qwen3 " + hf,
      "node axolotl_test.mjs --family llama31 " + drop + "/t1.hf.jsonl " + drop + "/t2.hf.jsonl",
      "python3 ../py/trl_recipe_test.py " + hf};
  for (const char* t : {"qwen3", "qwen"}) {
    commands.push_back(std::string("node llamafactory_test.mjs --template ") + t + " --think keep " + data +
                       "/t2.sharegpt.jsonl " + data + "/t2.hf.jsonl");
  }
  for (const char* t : {"llama3", "mistral", "glm4"}) {
    commands.push_back(std::string("node llamafactory_test.mjs --template ") + t + " --think drop " + drop +
                       "/t2.sharegpt.jsonl " + drop + "/t2.hf.jsonl");
  }
  for (const std::string& cmd : commands) {
    int rc = testing::RunShell("cd " + js + " && " + cmd, &out);
    INFO(cmd << "\n" << out);
    CHECK(rc == 0);
  }
}

// The integer in the card's table row "| <label> | N ... |".
long long CardNumber(const std::string& card, const std::string& label) {
  std::size_t at = card.find("| " + label + " | ");
  if (at == std::string::npos) return -1;
  return std::stoll(card.substr(at + label.size() + 5));
}

// export --dataset: the card's header parses as YAML, its counts are those of
// `seragen status --json`, every data file it names exists, and a rerun
// writes the same bytes.
void CheckDataset(const std::string& run_dir, const std::string& dir) {
  std::string out;
  REQUIRE(testing::RunShell(Binary() + " export " + run_dir + " --dataset " + dir, &out) == 0);
  const std::string card = ReadFile(dir + "/README.md").value();
  REQUIRE(card.rfind("---\n", 0) == 0);
  YAML::Node header = YAML::Load(card.substr(4, card.find("\n---\n", 4) - 4));
  REQUIRE(header["configs"].size() >= 4);
  for (const auto& config : header["configs"]) {
    std::string path = config["data_files"][0]["path"].as<std::string>();
    INFO(path);
    CHECK(std::filesystem::is_regular_file(dir + "/" + path));
  }
  json st = Status(run_dir);
  CHECK(CardNumber(card, "tasks planned") == st["planned"].get<long long>());
  CHECK(CardNumber(card, "tasks finished") == st["finished"].get<long long>());
  CHECK(CardNumber(card, "accepted") == st["accepted"].get<long long>());
  CHECK(CardNumber(card, "prompt tokens") == st["prompt_tokens"].get<long long>());
  CHECK(card.find("Not training data") != std::string::npos);  // the scripted teacher wrote these rows
  json info = json::parse(ReadFile(dir + "/dataset_info.json").value());
  CHECK(std::filesystem::is_regular_file(dir + "/" + info["seragen_t2"]["file_name"].get<std::string>()));
  std::map<std::string, std::string> first;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) first[e.path().string()] = ReadFile(e.path().string()).value();
  }
  REQUIRE(testing::RunShell(Binary() + " export " + run_dir + " --dataset " + dir, &out) == 0);
  for (const auto& [path, bytes] : first) {
    INFO(path);
    CHECK(ReadFile(path).value() == bytes);
  }
}

}  // namespace

TEST_CASE("python: the whole pipeline, every patch applies, scores follow the rule", "[e2e]") {
  testing::TempDir dir;
  TeacherProcess teacher(dir, "--seed 3");
  std::string cfg = WritePythonRepoConfig(dir, teacher.url());
  std::string out;
  int rc = testing::RunShell(Binary() + " run -c " + cfg, &out);
  INFO(out);  // captured here, after the run filled it
  REQUIRE(rc == 0);
  // The rollouts had the shared bytecode under their own layers, all unmounted when the run ended.
  CHECK(out.find("no shared Python bytecode") == std::string::npos);
  CHECK(MountsInPool(dir.Sub("run"), out).empty());
  json st = Status(dir.Sub("run"));
  CHECK(st["planned"].get<int>() == 5);
  CHECK(st["finished"] == st["planned"]);
  CheckExport(dir.Sub("run"), "hf", true);
  CheckRenders(dir.Sub("run"), "render_test.mjs", "hf");
  CheckExport(dir.Sub("run"), "openai", true);
  CheckExport(dir.Sub("run"), "hermes", true);
  CheckTextMatchesTemplate(dir.Sub("run"), "hermes");
  CheckExport(dir.Sub("run"), "xml", true);
  CheckTextMatchesTemplate(dir.Sub("run"), "xml");
  CheckExport(dir.Sub("run"), "sera", true);
  CheckRenders(dir.Sub("run"), "sera_chatml_test.mjs", "sera");
  CheckRecipes(dir.Sub("run"));
  CheckDataset(dir.Sub("run"), dir.Sub("dataset"));

  auto repo = repo::Repository::Open(dir.Sub("repo"));
  REQUIRE(repo.ok());
  std::string commit = *repo->ResolveCommit("HEAD");
  std::map<std::string, std::string> patches;  // task.rN -> patch
  for (const auto& t : Trajectories(dir.Sub("run"))) {
    if (!t.has_patch) continue;
    INFO(t.task_id << " rollout " << t.rollout << "\n" << t.patch);
    CHECK(repo->CheckPatchApplies(commit, t.patch).ok());
    patches[t.task_id + ".r" + std::to_string(t.rollout)] = t.patch;
  }
  CHECK(patches.size() >= 5);
  // The verified records hold exactly the scores of the rule on the stored patches.
  auto journal = journal::LoadJournal(dir.Sub("run/shard-0/journal.jsonl"));
  REQUIRE(journal.ok());
  int verified = 0;
  for (const auto& r : journal->records) {
    if (r.stage != journal::Stage::kVerified) continue;
    ++verified;
    REQUIRE(r.verification() != nullptr);
    REQUIRE(r.verification()->scores.has_value());
    const journal::VerificationScores& recorded = *r.verification()->scores;
    REQUIRE(verify::VerifyRuleFromName(recorded.rule).has_value());
    auto stored = verify::ScoresFromCounts(*verify::VerifyRuleFromName(recorded.rule), recorded.p1_lines,
                                           recorded.p2_lines, recorded.matched, recorded.p2_blank);
    REQUIRE(stored.ok());
    CHECK(recorded.recall == stored->recall);
    verify::Scores recomputed =
        verify::ScorePatches(patches[r.task_id + ".r1"], patches[r.task_id + ".r2"], stored->rule);
    CHECK(recomputed == *stored);
    CHECK((r.status == "accepted") == verify::Accept(recomputed, 0.5));
  }
  CHECK(verified > 0);
  // Rerunning resumes: nothing left to do, no new model calls (health probes aside).
  auto chat_requests = [&] {
    std::size_t n = 0;
    for (const auto& line : ReadLines(dir.Sub("requests.jsonl"))) {
      std::string kind = json::parse(line)["kind"];
      n += kind != "models" && kind != "health";
    }
    return n;
  };
  std::size_t requests = chat_requests();
  CHECK(requests > 0);
  REQUIRE(testing::RunShell(Binary() + " run -c " + cfg, &out) == 0);
  CHECK(chat_requests() == requests);
  // Its final line gives the run's totals, and this invocation's (nothing) apart.
  const int accepted = st["verified"]["accepted"].get<int>();
  REQUIRE(accepted > 0);
  CHECK(out.find("shard 0/1: 5/5 tasks done, " + std::to_string(accepted) +
                 " accepted; this invocation: 0 finished, 0 accepted") != std::string::npos);
}

TEST_CASE("a teacher that never submits in rollout 1: the call budget autosubmits and the task reaches stage 2",
          "[e2e][autosubmit]") {
  testing::TempDir dir;
  MakePythonRepo(dir.Sub("repo"));
  // Rollout 1 changes a file, then only looks around until the call budget ends it.
  std::string script = "rollout1:\n  - tool: bash\n    arguments: '{\"command\": \"echo seen >> README.md\"}'\n";
  for (int i = 0; i < 30; ++i) script += "  - tool: bash\n    arguments: '{\"command\": \"ls\"}'\n";
  TeacherProcess teacher(dir, ReplayFlags(dir, script));
  std::string cfg = WriteConfig(dir, dir.Sub("repo"), teacher.url(), "");
  std::string out;
  // One task is enough (the others would repeat its P1): exit code 3, the rest of the plan left undone.
  int rc =
      testing::RunShell(Binary() + " run -c " + cfg + " --set agent.max_model_calls=20 --set budget.max_tasks=1", &out);
  INFO(out);
  REQUIRE(rc == 3);
  std::map<std::string, std::vector<json>> by_task;
  for (const std::string& line : ReadLines(dir.Sub("run") + "/shard-0/journal.jsonl")) {
    json rec = json::parse(line);
    if (rec.contains("task_id")) by_task[rec["task_id"].get<std::string>()].push_back(rec);
  }
  REQUIRE(by_task.size() == 1);
  const std::vector<json>& recs = by_task.begin()->second;
  std::vector<std::string> stages;
  for (const json& r : recs) stages.push_back(r["stage"].get<std::string>());
  INFO(json(stages).dump());
  REQUIRE(recs.front()["stage"] == "rollout1_done");
  CHECK(recs.front()["status"] == "exit_model_calls");
  CHECK(recs.front()["extra"]["autosubmitted"] == true);
  CHECK(std::count(stages.begin(), stages.end(), "issue_done") == 1);
  CHECK(std::count(stages.begin(), stages.end(), "rollout2_done") == 1);
  CHECK(stages.back() == "verified");
  json st = Status(dir.Sub("run"));
  CHECK(st["autosubmitted"].get<int>() >= 1);
  CHECK(st["rollout_exits"].contains("autosubmitted:exit_model_calls"));
  // Training rows take plain submits only: rollout 1 is not exported.
  REQUIRE(testing::RunShell(Binary() + " export " + dir.Sub("run") + " --format openai", &out) == 0);
  CHECK(ReadLines(dir.Sub("run") + "/data/t1.openai.jsonl").empty());
}

TEST_CASE("javascript: the pipeline works on a second language", "[e2e]") {
  testing::TempDir dir;
  MakeJavaScriptRepo(dir.Sub("repo"));
  TeacherProcess teacher(dir, "--seed 5");
  std::string cfg = WriteConfig(dir, dir.Sub("repo"), teacher.url(), "");
  std::string out;
  // Half of the fixture's functions have no resolved call edge; keep them so
  // there are enough tasks (selection itself is tested in callgraph).
  REQUIRE(testing::RunShell(Binary() + " run -c " + cfg + " --set selection.languages=[javascript]" +
                                " --set selection.require_edges=none",
                            &out) == 0);
  json st = Status(dir.Sub("run"));
  CHECK(st["planned"].get<int>() >= 3);
  CHECK(st["finished"] == st["planned"]);
  CheckExport(dir.Sub("run"), "openai", true);
}

TEST_CASE("the SWE-agent tool profile runs end to end and shapes the training records", "[e2e]") {
  testing::TempDir dir;
  TeacherProcess teacher(dir, "--seed 3");
  std::string cfg = WritePythonRepoConfig(
      dir, teacher.url(), "tools: {file: '" + seragen::testing::SourcePath("configs/tools-sweagent.yaml'}\n"));
  std::string out;
  int rc = testing::RunShell(Binary() + " run -c " + cfg, &out);
  INFO(out);
  REQUIRE(rc == 0);
  json st = Status(dir.Sub("run"));
  CHECK(st["finished"] == st["planned"]);
  CheckExport(dir.Sub("run"), "openai", true);
  int editor_calls = 0, observations = 0;
  for (const char* which : {"t1", "t2"}) {
    for (const std::string& line : ReadLines(dir.Sub("run/data/") + which + ".openai.jsonl")) {
      json rec = json::parse(line);
      std::set<std::string> names;
      for (const auto& t : rec["tools"]) names.insert(t["function"]["name"].get<std::string>());
      CHECK(names == std::set<std::string>{"bash", "str_replace_editor", "submit"});
      for (const auto& m : rec["messages"]) {
        if (m["role"] == "tool") {
          ++observations;
          CHECK(m["content"].get<std::string>().rfind("OBSERVATION:\n", 0) == 0);
        }
        if (m["role"] != "assistant" || !m.contains("tool_calls")) continue;
        for (const auto& c : m["tool_calls"]) editor_calls += c["function"]["name"] == "str_replace_editor";
      }
    }
  }
  CHECK(observations > 0);
  CHECK(editor_calls > 0);
}

// Prefix caching on real servers pays only if every agent request extends the
// previous one of its rollout; the teacher's simulated cache shows the effect.
TEST_CASE("agent requests only ever append to their conversation, so the prefix cache serves them", "[e2e]") {
  testing::TempDir dir;
  TeacherProcess teacher(dir, "--seed 3 --body-log " + dir.Sub("bodies.jsonl"));
  std::string cfg = WritePythonRepoConfig(dir, teacher.url());
  std::string out;
  int rc = testing::RunShell(Binary() + " run -c " + cfg, &out);
  INFO(out);
  REQUIRE(rc == 0);
  std::map<std::string, std::vector<json>> conversations;  // system + first user message -> requests
  for (const std::string& line : ReadLines(dir.Sub("bodies.jsonl"))) {
    json body = json::parse(line);
    if (!body.contains("tools") || body["messages"].size() < 2) continue;
    conversations[body["messages"][0].dump() + body["messages"][1].dump()].push_back(body["messages"]);
  }
  REQUIRE(conversations.size() >= 5);
  std::size_t checked = 0;
  for (auto& [key, requests] : conversations) {
    std::stable_sort(requests.begin(), requests.end(),
                     [](const json& a, const json& b) { return a.size() < b.size(); });
    for (std::size_t i = 1; i < requests.size(); ++i) {
      const json& before = requests[i - 1];
      const json& after = requests[i];
      for (std::size_t m = 0; m < before.size(); ++m) {
        INFO("message " << m << " of a request with " << after.size());
        CHECK(after[m] == before[m]);
      }
      ++checked;
    }
  }
  CHECK(checked > 10);
  // The simulated cache (configs/teacher.yaml prefix_cache_blocks) serves every earlier turn of a
  // rollout (the teacher's rollouts have about 11 calls, with large file views) and the tool
  // schemas and system prompt all rollouts share: most agent prompt tokens (BENCHMARKS.md);
  // single-message stages share little.
  json st = Status(dir.Sub("run"));
  INFO(st["prompt_cache"].dump());
  CHECK(st["prompt_cache"]["rollout1"]["hit_rate"].get<double>() >= 0.45);
  CHECK(st["prompt_cache"]["rollout2"]["hit_rate"].get<double>() >= 0.45);
  CHECK(st["prompt_cache"]["issue"]["hit_rate"].get<double>() < 0.2);
}

TEST_CASE("a changed config is refused with the list of changes", "[e2e]") {
  testing::TempDir dir;
  TeacherProcess teacher(dir, "--seed 3");
  MakePythonRepo(dir.Sub("repo"));
  std::string cfg = WriteConfig(dir, dir.Sub("repo"), teacher.url());
  std::string out;
  REQUIRE(testing::RunShell(Binary() + " plan -c " + cfg, &out) == 0);
  std::string tasks = *ReadFile(dir.Sub("run/tasks.jsonl"));
  REQUIRE(testing::RunShell(Binary() + " plan -c " + cfg, &out) == 0);
  CHECK(*ReadFile(dir.Sub("run/tasks.jsonl")) == tasks);  // deterministic, reused
  // Only a run whose tasks ran is bound to its config (a start that ran no
  // task is planned afresh: run_ux_e2e_test.cc).
  REQUIRE(testing::RunShell(Binary() + " run -c " + cfg, &out) == 0);
  CHECK(testing::RunShell(Binary() + " run -c " + cfg + " --set agent.max_steps=7", &out) == 2);
  CHECK(out.find("agent.max_steps: 30 -> 7") != std::string::npos);
  CHECK(out.find("--allow-config-change") != std::string::npos);
  // Operational settings may change on resume.
  CHECK(testing::RunShell(Binary() + " plan -c " + cfg + " --set run.concurrency=9", &out) == 0);
}

TEST_CASE("a new run of the same commit plans from the shared graph cache with the same task ids", "[e2e]") {
  testing::TempDir dir;
  MakePythonRepo(dir.Sub("repo"));
  std::string cfg = WriteConfig(dir, dir.Sub("repo"), "http://127.0.0.1:9/v1");
  const std::string plan = "XDG_CACHE_HOME=" + dir.Sub("cache") + " " + Binary() + " plan -c " + cfg;
  std::string out;
  REQUIRE(testing::RunShell(plan + " --set run.dir=" + dir.Sub("run1"), &out) == 0);
  CHECK(out.find("graph from cache") == std::string::npos);
  const std::string tasks = *ReadFile(dir.Sub("run1/tasks.jsonl"));
  REQUIRE(testing::RunShell(plan + " --set run.dir=" + dir.Sub("run2"), &out) == 0);
  CHECK(out.find("(graph from cache)") != std::string::npos);
  CHECK(*ReadFile(dir.Sub("run2/tasks.jsonl")) == tasks);
  // A damaged entry is rebuilt: the same plan again.
  REQUIRE(testing::RunShell("for f in " + dir.Sub("cache/seragen/graphs") +
                                "/*.json; do head -c 200 \"$f\" > \"$f.cut\" && mv \"$f.cut\" \"$f\"; done",
                            &out) == 0);
  REQUIRE(testing::RunShell(plan + " --set run.dir=" + dir.Sub("run3"), &out) == 0);
  CHECK(out.find("graph from cache") == std::string::npos);
  CHECK(*ReadFile(dir.Sub("run3/tasks.jsonl")) == tasks);
}

TEST_CASE("seragen plan shows what selection did: reasons and picked functions per directory", "[e2e]") {
  testing::TempDir dir;
  MakePythonRepo(dir.Sub("repo"));
  // Code next to the package that SERA never graphs: an example and a Sphinx conf.py.
  std::string call =
      "from inventory.stock import Stock\\n\\ndef main():\\n    s = Stock()\\n    s.add(1, 2)\\n"
      "    return s.available(1)\\n";
  REQUIRE(testing::RunShell("cd " + dir.Sub("repo") + " && mkdir -p examples docs && printf '" + call +
                            "' > examples/demo.py && printf '" + call +
                            "' > docs/conf.py && git add -A && "
                            "git -c user.name=t -c user.email=t@example.invalid commit -q -m examples") == 0);
  std::string cfg = WriteConfig(dir, dir.Sub("repo"), "http://127.0.0.1:9/v1");
  std::string out;
  REQUIRE(testing::RunShell(Binary() + " plan -c " + cfg + " --set selection.max_functions_per_repo=0", &out) == 0);
  INFO(out);
  CHECK(out.find("rejected: auxiliary 2,") != std::string::npos);
  CHECK(out.find("no_edges ") != std::string::npos);
  CHECK(out.find("picked functions per directory:\n  sample/inventory: ") != std::string::npos);
  CHECK(out.find("sample/examples") == std::string::npos);
  CHECK(out.find("sample/docs") == std::string::npos);
  // The defaults can be switched off.
  REQUIRE(testing::RunShell(Binary() + " plan -c " + cfg + " --set run.dir=" + dir.Sub("run-all") +
                                " --set selection.exclude_auxiliary=false --set selection.max_functions_per_repo=0",
                            &out) == 0);
  CHECK(out.find("  sample/examples: 1\n") != std::string::npos);
  CHECK(out.find("  sample/docs: 1\n") != std::string::npos);
}

TEST_CASE("with llm.model set and nothing listening, run gives up after llm.startup_wait_s", "[e2e]") {
  testing::TempDir dir;
  MakePythonRepo(dir.Sub("repo"));
  // Port 9 (discard) on loopback: nothing listens. The outer timeout turns the
  // old endless wait into a failure instead of a hung test.
  std::string cfg = WriteConfig(dir, dir.Sub("repo"), "http://127.0.0.1:9/v1");
  std::string out;
  auto start = std::chrono::steady_clock::now();
  int rc = testing::RunShell("timeout 60 " + Binary() + " run -c " + cfg + " --set llm.startup_wait_s=1", &out);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(out);
  CHECK(rc == 1);
  CHECK(seconds < 30);
  CHECK(out.find("no model endpoint listed a model within 1 s (llm.startup_wait_s)") != std::string::npos);
  CHECK(out.find("http://127.0.0.1:9/v1") != std::string::npos);

  // Without llm.model the model list is asked for just as long.
  testing::TempDir other;
  cfg = WriteConfig(other, dir.Sub("repo"), "http://127.0.0.1:9/v1");
  start = std::chrono::steady_clock::now();
  rc = testing::RunShell("timeout 60 " + Binary() + " run -c " + cfg + " --set llm.startup_wait_s=1 --set llm.model=",
                         &out);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(out);
  CHECK(rc == 1);
  CHECK(seconds >= 1);
  CHECK(seconds < 30);
  CHECK(out.find("no model endpoint listed a model within 1 s (llm.startup_wait_s)") != std::string::npos);
}

TEST_CASE("faults: 5xx, 429, resets, hangs, truncation and malformed tool calls, the run finishes", "[e2e]") {
  testing::TempDir dir;
  MakePythonRepo(dir.Sub("repo"));
  dir.Write("teacher.yaml", "policy:\n  invalid_json_rate: 0.1\n  multi_call_rate: 0.05\n  raw_markup_rate: 0.05\n");
  TeacherProcess teacher(dir.path(),
                         "--seed 9 --config " + dir.Sub("teacher.yaml") +
                             " --faults 500=0.05,502=0.03,503=0.03,429=0.05,reset=0.03,hang=0.01,truncate=0.03,"
                             "retry_after=1,hang_seconds=30",
                         dir.Sub("requests.jsonl"));
  REQUIRE_FALSE(teacher.url().empty());
  std::string cfg = WriteConfig(dir, dir.Sub("repo"), teacher.url(), "");
  std::string out;
  int rc = testing::RunShell(Binary() + " run -c " + cfg + " --set llm.request_timeout_s=2", &out);
  INFO(out);
  CHECK(rc == 0);
  json st = Status(dir.Sub("run"));
  CHECK(st["finished"].get<int>() + st["infra_failures"].size() >= 1);
  // Faults were injected and the client classified and survived them.
  std::size_t faults = 0;
  for (const auto& line : ReadLines(dir.Sub("requests.jsonl"))) faults += json::parse(line)["fault"] != "none";
  CHECK(faults > 0);
  // Malformed turns were rejected as format errors and kept in the trajectories.
  int format_errors = 0;
  for (const auto& t : Trajectories(dir.Sub("run"))) format_errors += t.totals.format_errors;
  CHECK(format_errors > 0);
  CheckExport(dir.Sub("run"), "openai", false);
}

// Whether `pid` is still running: not gone and not a zombie (a process whose
// parent exited may stay a zombie when nothing reaps it, and kill(pid, 0)
// still succeeds on it).
bool Running(int pid) {
  std::string stat;
  if (auto text = ReadFile("/proc/" + std::to_string(pid) + "/stat"); text.ok()) stat = *text;
  std::size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// Chat requests in the teacher's request log (not its models or health probes).
std::size_t ChatRequests(const std::string& log) {
  std::size_t n = 0;
  for (const std::string& line : ReadLines(log)) {
    json j = json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    std::string kind = j.value("kind", "");
    n += kind == "models" || kind == "health" ? 0 : 1;
  }
  return n;
}

// Waits (at most 30 s) until the teacher has more than `before` chat requests,
// i.e. the run started at `pid` made its first model call, or until it ended.
void WaitForRequestsBeyond(const std::string& log, std::size_t before, int pid) {
  for (int i = 0; i < 3000 && Running(pid); ++i) {
    if (ChatRequests(log) > before) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Requests the teacher answered more than once: the same messages with the
// same seed (an issue-writer retry has another seed), in body-log order. For
// each, the round (index into `marks`, the body-log length after each kill)
// in which its first copy arrived.
std::vector<std::size_t> RepeatedRequests(const std::vector<std::string>& bodies,
                                          const std::vector<std::size_t>& marks) {
  std::map<std::string, std::size_t> first_seen;  // key -> body index
  std::vector<std::size_t> rounds;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    json body = json::parse(bodies[i]);
    std::string key = body["messages"].dump() + "|" + body.value("seed", json()).dump();
    auto [it, fresh] = first_seen.emplace(key, i);
    if (fresh) continue;
    std::size_t round = 0;
    while (round < marks.size() && marks[round] <= it->second) ++round;
    rounds.push_back(round);
  }
  return rounds;
}

TEST_CASE("kill -9 at random moments: resumed runs lose nothing and redo no finished rollout", "[e2e][kill]") {
  testing::TempDir dir;
  MakePythonRepo(dir.Sub("repo"));
  // 100 ms per answer: many kills land while model calls are in flight.
  TeacherProcess teacher(dir, "--seed 4 --latency fixed:100 --body-log " + dir.Sub("bodies.jsonl"));
  std::string cfg = WriteConfig(dir, dir.Sub("repo"), teacher.url());
  // Twenty replicas per function (100 tasks, at least 24 s of answers at concurrency 3): every
  // round's run is still busy when killed, even on a fast machine.
  std::string yaml = *ReadFile(cfg);
  std::size_t at = yaml.find("max_functions_per_repo: 5}");
  REQUIRE(at != std::string::npos);
  yaml.replace(at, 26, "max_functions_per_repo: 5, replicas: 20}");
  dir.Write("config.yaml", yaml);
  const int concurrency = 3;  // WriteConfig's run.concurrency: at most one model call per task in flight
  Rng rng(2026);
  // conversation id -> request-log length when its rollout was first seen durable.
  std::map<std::string, std::size_t> durable_at;
  std::vector<std::size_t> marks;  // body-log length after each kill
  int kills = 0;
  for (int round = 0; round < 20; ++round) {
    std::string out;
    const std::size_t requests_before = ChatRequests(dir.Sub("requests.jsonl"));
    testing::RunShell(Binary() + " run -c " + cfg + " > " + dir.Sub("run.log") + " 2>&1 & echo $!", &out);
    int pid = std::atoi(out.c_str());
    REQUIRE(pid > 0);
    // The window opens at the round's first model call (start-up on a loaded 2-core machine can
    // take longer than the window itself); long enough then for some rollouts to become durable.
    WaitForRequestsBeyond(dir.Sub("requests.jsonl"), requests_before, pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + rng.Uniform(1000)));
    bool alive = Running(pid);
    ::kill(pid, SIGKILL);
    for (int i = 0; i < 200 && Running(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    kills += alive ? 1 : 0;
    marks.push_back(ReadLines(dir.Sub("bodies.jsonl")).size());
    std::size_t log_len = ReadLines(dir.Sub("requests.jsonl")).size();
    auto journal = journal::LoadJournal(dir.Sub("run/shard-0/journal.jsonl"));
    if (!journal.ok()) continue;  // killed before the journal existed
    for (const auto& r : journal->records) {
      if (r.stage != journal::Stage::kRollout1Done && r.stage != journal::Stage::kRollout2Done) continue;
      for (const auto& [role, path] : r.refs) {
        auto t = agent::TrajectoryFromJson(*ReadFile(dir.Sub("run/shard-0/" + path)));
        REQUIRE(t.ok());
        durable_at.emplace(ConversationIdOf(t->history[0].content, t->history[1].content), log_len);
      }
    }
  }
  CHECK(kills >= 16);
  // The last run only has to finish what is left, most of the test's time at concurrency 3; it
  // takes more tasks at once (run.concurrency may change on resume). The killed runs above keep
  // `concurrency`, which bounds the calls repeated per kill below.
  std::string out;
  REQUIRE(testing::RunShell(Binary() + " run -c " + cfg + " --set run.concurrency=12", &out) == 0);
  // No bytecode layer of a killed run stays mounted: the last run cleared them all.
  CHECK(MountsInPool(dir.Sub("run"), out).empty());

  // Every planned task finished exactly once; no journal line is torn in the middle.
  auto journal = journal::LoadJournal(dir.Sub("run/shard-0/journal.jsonl"));
  REQUIRE(journal.ok());
  std::map<std::string, int> terminal;
  for (const auto& r : journal->records) {
    if (journal::IsTerminalStage(r.stage) && !(r.stage == journal::Stage::kFailed && r.error && r.error->retryable)) {
      terminal[r.task_id]++;
    }
  }
  json st = Status(dir.Sub("run"));
  CHECK(st["finished"] == st["planned"]);
  CHECK(terminal.size() == st["planned"].get<std::size_t>());
  for (const auto& [id, n] : terminal) CHECK(n == 1);
  CheckExport(dir.Sub("run"), "openai", true);
  // No rollout that was durable at some kill was started again afterwards. The teacher names a
  // conversation by its first two messages; a rollout-1 attempt after a judge "no" may draw the
  // category another replica of the same function has, so such names (started with more than one
  // seed) are left out.
  std::map<std::string, std::set<std::string>> start_seeds;
  for (const std::string& line : ReadLines(dir.Sub("bodies.jsonl"))) {
    json body = json::parse(line);
    if (!body.contains("tools") || body["messages"].size() != 2) continue;
    std::string conv = ConversationIdOf(body["messages"][0]["content"].get<std::string>(),
                                        body["messages"][1]["content"].get<std::string>());
    start_seeds[conv].insert(body.value("seed", json()).dump());
  }
  auto log = ReadLines(dir.Sub("requests.jsonl"));
  for (const auto& [conv, len] : durable_at) {
    if (start_seeds[conv].size() > 1) continue;
    for (std::size_t i = len; i < log.size(); ++i) {
      json r = json::parse(log[i]);
      if (r["conversation"] == conv) CHECK_FALSE(r["rollout_start"].get<bool>());
    }
  }
  CHECK_FALSE(durable_at.empty());
  // Rollouts in flight resumed from their turn logs: a model call is asked again only when it was
  // in flight at a kill, so each kill repeats at most `concurrency` calls (one per running task).
  std::vector<std::size_t> repeated = RepeatedRequests(ReadLines(dir.Sub("bodies.jsonl")), marks);
  std::map<std::size_t, int> per_round;
  for (std::size_t r : repeated) per_round[r]++;
  std::string figures;
  for (const auto& [r, n] : per_round) figures += " round " + std::to_string(r) + ": " + std::to_string(n) + ";";
  const json& resume = st["rollout_resume"];
  std::printf(
      "kill test: %d kills, %zu model requests, %zu repeated (bound %d = kills x concurrency);%s "
      "%lld rollouts resumed inside, %lld calls replayed, %lld restarts\n",
      kills, ReadLines(dir.Sub("bodies.jsonl")).size(), repeated.size(), kills * concurrency, figures.c_str(),
      resume["rollout_replays"].get<long long>(), resume["replayed_calls"].get<long long>(),
      resume["rollout_restarts"].get<long long>());
  CHECK(repeated.size() <= static_cast<std::size_t>(kills * concurrency));
  CHECK(resume["replayed_calls"].get<int>() > 0);
  CHECK(resume["rollout_restarts"].get<int>() == 0);
  // Every turn log went with its rollout's done record.
  bool logs_left =
      std::filesystem::exists(dir.Sub("run/shard-0/turns")) && !std::filesystem::is_empty(dir.Sub("run/shard-0/turns"));
  CHECK_FALSE(logs_left);
}

}  // namespace seragen::e2e

namespace seragen::e2e {

TEST_CASE("two shards run separately, then merge writes every task once", "[e2e]") {
  testing::TempDir dir;
  TeacherProcess teacher(dir, "--seed 6");
  std::string cfg = WritePythonRepoConfig(dir, teacher.url());
  std::string out;
  REQUIRE(testing::RunShell(Binary() + " run -c " + cfg + " --shard 0/2", &out) == 0);
  json st = Status(dir.Sub("run"));
  CHECK(st["shards"] == 1);
  CHECK(st["finished"].get<int>() == 3);  // tasks 0, 2, 4 of 5
  // Slurm's array variables pick the shard when no flag is given.
  REQUIRE(testing::RunShell("SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=2 " + Binary() + " run -c " + cfg, &out) ==
          0);
  st = Status(dir.Sub("run"));
  CHECK(st["shards"] == 2);
  CHECK(st["finished"] == st["planned"]);
  REQUIRE(testing::RunShell(Binary() + " merge " + dir.Sub("run") + " --formats openai hermes", &out) == 0);
  std::set<std::string> t1;
  for (const auto& line : ReadLines(dir.Sub("run/data/t1.openai.jsonl"))) {
    CHECK(t1.insert(json::parse(line)["metadata"]["task_id"].get<std::string>()).second);
  }
  CHECK(t1.size() >= 3);
  CHECK(ReadLines(dir.Sub("run/data/t1.hermes.jsonl")).size() == t1.size());
  // A shard outside 0..N-1 is a usage error that names the flag.
  CHECK(testing::RunShell(Binary() + " run -c " + cfg + " --shard 5/2", &out) == 2);
  CHECK(out.find("--shard") != std::string::npos);
}

}  // namespace seragen::e2e
