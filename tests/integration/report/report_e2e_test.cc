// `seragen report` and `seragen show` on a finished run of the real binary
// against the scripted teacher (a stand-in for a model, not a model).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "integration/pipeline/harness.h"
#include "seragen/base/file_util.h"

namespace seragen::e2e {
namespace {

using nlohmann::json;

std::string Read(const std::string& path) {
  auto text = ReadFile(path);
  REQUIRE(text.ok());
  return *text;
}

// A finished run of the demo repository.
struct Run {
  testing::TempDir dir;
  std::string run_dir;
  Run() {
    MakePythonRepo(dir.Sub("repo"));
    TeacherProcess teacher(dir, "--seed 3");
    std::string out;
    int rc = testing::RunShell(Binary() + " run -c " + WriteConfig(dir, dir.Sub("repo"), teacher.url()), &out);
    INFO(out);
    REQUIRE(rc == 0);
    run_dir = dir.Sub("run");
  }
  json Status() const {
    std::string out;
    REQUIRE(testing::RunShell(Binary() + " status " + run_dir + " --json", &out) == 0);
    return json::parse(out);
  }
};

// The number in the funnel row of `step` ("<tr data-step=STEP>...<td class="n">N</td>").
std::size_t FunnelCount(const std::string& index, const std::string& step) {
  std::regex re("<tr data-step=\"" + step + "\"><td>[^<]*</td><td class=\"n\">([0-9,]+)</td>");
  std::smatch m;
  REQUIRE(std::regex_search(index, m, re));
  std::string digits = m[1];
  digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
  return std::stoul(digits);
}

TEST_CASE("report: every task of status --json is linked, has a page, and the counts agree", "[e2e][report]") {
  Run run;
  json st = run.Status();
  std::string out;
  int rc = testing::RunShell(
      Binary() + " report " + run.run_dir + " -o " + run.dir.Sub("out") + " --page-rows 2 --chunk-rows 2", &out);
  INFO(out);
  REQUIRE(rc == 0);
  std::string index = Read(run.dir.Sub("out/index.html"));
  // Every task (plan, status's "planned") in the table data, each with its page.
  std::string chunks;
  for (const auto& e : std::filesystem::directory_iterator(run.dir.Sub("out/data"))) {
    if (e.path().extension() == ".js") chunks += Read(e.path().string());
  }
  std::regex page_re("\"([A-Za-z0-9_-]+\\.html)\"");
  std::set<std::string> pages;
  for (std::sregex_iterator it(chunks.begin(), chunks.end(), page_re), end; it != end; ++it) pages.insert((*it)[1]);
  CHECK(pages.size() == st["planned"].get<std::size_t>());
  for (const std::string& p : pages) CHECK(std::filesystem::exists(run.dir.Sub("out/tasks/" + p)));
  // Every task id in the journal is among them.
  for (const std::string& line : ReadLines(run.run_dir + "/shard-0/journal.jsonl")) {
    json rec = json::parse(line);
    if (rec.value("type", "") != "task") continue;
    CHECK(pages.count(rec["task_id"].get<std::string>() + ".html") == 1);
  }
  CHECK(FunnelCount(index, "planned") == st["planned"].get<std::size_t>());
  CHECK(FunnelCount(index, "accepted") == st["verified"].value("accepted", std::size_t{0}));
  CHECK(index.find("<span id=\"n-started\">" + std::to_string(st["started"].get<std::size_t>()) + "</span>") !=
        std::string::npos);
  CHECK(index.find("<span id=\"n-finished\">" + std::to_string(st["finished"].get<std::size_t>()) + "</span>") !=
        std::string::npos);
  std::size_t verified = 0;
  for (const auto& [k, n] : st["verified"].items()) verified += n.get<std::size_t>();
  CHECK(FunnelCount(index, "rollout2_submitted") >= verified - st["verified"].value("not_scorable", std::size_t{0}));
}

TEST_CASE("show: a trajectory as plain text when piped, the file with --raw", "[e2e][report]") {
  Run run;
  std::string id;  // a task with both rollouts
  for (const std::string& line : ReadLines(run.run_dir + "/shard-0/journal.jsonl")) {
    json rec = json::parse(line);
    if (rec.value("stage", "") == "rollout2_done") id = rec["task_id"];
  }
  REQUIRE_FALSE(id.empty());
  std::string out;
  REQUIRE(testing::RunShell(Binary() + " show " + run.run_dir + " " + id.substr(0, 10) + " | cat", &out) == 0);
  INFO(out);
  CHECK(out.find('\x1b') == std::string::npos);  // piped: no color
  CHECK(out.find("task " + id) != std::string::npos);
  CHECK(out.find("rollout 1: submitted") != std::string::npos);
  CHECK(out.find("tool call") != std::string::npos);
  CHECK(out.find("\nP1\n") != std::string::npos);

  REQUIRE(testing::RunShell(Binary() + " show " + run.run_dir + " " + id + " --rollout 2 --raw", &out) == 0);
  json traj = json::parse(out);
  CHECK(traj["task_id"] == id);
  CHECK(traj["rollout"] == 2);

  CHECK(testing::RunShell(Binary() + " show " + run.run_dir + " nosuchtask", &out) == 2);
  CHECK(out.find("no task") != std::string::npos);
}

}  // namespace
}  // namespace seragen::e2e
