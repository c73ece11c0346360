// The report in a real browser: headless Chromium (Debian's `chromium`,
// installed by scripts/setup) opens the pages from disk. Fails on any console
// message (script errors, missing files, a hostile string that became markup
// and ran) and saves screenshots in BUILD/test-artifacts/report/.
// Pages "without JavaScript" are copies that forbid every script
// (WithoutScript). Label "browser" (ctest -L browser).
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "integration/pipeline/harness.h"
#include "report/synthetic_run.h"
#include "seragen/base/file_util.h"
#include "testing/source_paths.h"

namespace seragen::e2e {
namespace {

using nlohmann::json;

std::string ArtifactDir() {
  std::string dir = seragen::testing::BinaryDir() + "/test-artifacts/report";
  std::filesystem::create_directories(dir);
  return dir;
}

struct Browser {
  testing::TempDir profile;
  std::string stderr_text;

  // Runs headless Chromium on `url` with `args`; returns stdout (the DOM with
  // --dump-dom). The console lines of stderr are kept in stderr_text.
  std::string Run(const std::string& args, const std::string& url) {
    REQUIRE(testing::RunShell("command -v chromium >/dev/null") == 0);  // scripts/setup installs it
    std::string out;
    std::string err_file = profile.Sub("stderr.txt");
    // As root Chromium needs --no-sandbox; the pages are local files.
    int rc = testing::RunShell(
        "timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
        "--no-first-run --user-data-dir=" +
            profile.Sub("p") + " --enable-logging=stderr --v=0 " + args + " '" + url + "' 2>" + err_file,
        &out);
    auto err = ReadFile(err_file);
    stderr_text = err.ok() ? *err : "";
    INFO(stderr_text);
    REQUIRE(rc == 0);
    return out;
  }

  // Console output of the page (errors and anything else a page logs).
  std::string ConsoleLines() const {
    std::string lines;
    std::istringstream in(stderr_text);
    for (std::string line; std::getline(in, line);) {
      if (line.find("CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos) lines += line + "\n";
    }
    return lines;
  }
};

std::string Report(const std::string& run_dir, const std::string& out_dir, const std::string& extra = "") {
  std::string out;
  int rc = testing::RunShell(Binary() + " report " + run_dir + " -o " + out_dir + " " + extra, &out);
  INFO(out);
  REQUIRE(rc == 0);
  return out;
}

// A copy of `page` next to it (so its relative links still work) that no
// script may run in: a Content-Security-Policy of script-src 'none'. This is
// how the test switches JavaScript off; Chromium's new headless mode gives
// no DOM and no screenshot with --blink-settings=scriptEnabled=false.
std::string WithoutScript(const std::string& page) {
  auto text = ReadFile(page);
  REQUIRE(text.ok());
  std::string html = *text;
  auto head = html.find("<head>");
  REQUIRE(head != std::string::npos);
  html.insert(head + 6, "<meta http-equiv=\"Content-Security-Policy\" content=\"script-src 'none'\">");
  std::string copy = page.substr(0, page.size() - 5) + ".noscript.html";
  REQUIRE(WriteFileAtomic(copy, html).ok());
  return copy;
}

std::string FirstTaskPage(const std::string& report_dir) {
  std::string best;
  for (const auto& e : std::filesystem::directory_iterator(report_dir + "/tasks")) {
    std::string p = e.path().string();
    if (best.empty() || p < best) best = p;
  }
  REQUIRE_FALSE(best.empty());
  return best;
}

TEST_CASE("browser: the e2e run's index and a task page load from disk with no console errors", "[browser]") {
  testing::TempDir dir;
  MakePythonRepo(dir.Sub("repo"));
  {
    TeacherProcess teacher(dir, "--seed 3");
    std::string out;
    REQUIRE(testing::RunShell(Binary() + " run -c " + WriteConfig(dir, dir.Sub("repo"), teacher.url()), &out) == 0);
  }
  std::string report = dir.Sub("report");
  Report(dir.Sub("run"), report, "--page-rows 2 --chunk-rows 2");
  Browser b;
  const std::string art = ArtifactDir();
  b.Run("--window-size=1280,2200 --screenshot=" + art + "/index.png", "file://" + report + "/index.html");
  CHECK(b.ConsoleLines().empty());
  CHECK(std::filesystem::file_size(art + "/index.png") > 0);
  b.Run("--window-size=1280,2200 --screenshot=" + art + "/task.png", "file://" + FirstTaskPage(report));
  CHECK(b.ConsoleLines().empty());
  // The script pages through the lazily loaded chunks: page 2 is rows 3-4,
  // from data/rows-1.js.
  std::string dom = b.Run("--virtual-time-budget=10000 --dump-dom", "file://" + report + "/index.html#page=2");
  CHECK(b.ConsoleLines().empty());
  CHECK(dom.find("page 2 of") != std::string::npos);
  auto body = dom.find("<tbody id=\"task-rows\">");
  REQUIRE(body != std::string::npos);
  std::string rows = dom.substr(body, dom.find("</tbody>", body) - body);
  std::regex link("<a href=\"tasks/[^\"]+\\.html\">");
  CHECK(std::distance(std::sregex_iterator(rows.begin(), rows.end(), link), std::sregex_iterator()) == 2);
}

TEST_CASE("browser: hostile run text stays text, and without JavaScript the tables and diffs show", "[browser]") {
  testing::TempDir dir;
  report::testing::SyntheticRunOptions o;
  o.tasks = 30;
  REQUIRE(report::testing::MakeSyntheticRun(dir.Sub("run"), o).ok());
  std::string report = dir.Sub("report");
  Report(dir.Sub("run"), report, "--page-rows 10 --chunk-rows 7");
  Browser b;
  const std::string art = ArtifactDir();
  std::string task = FirstTaskPage(report);
  // With script on: the hostile strings would log "injected" if they ran.
  std::string dom = b.Run("--virtual-time-budget=5000 --dump-dom", "file://" + task);
  CHECK(b.ConsoleLines().empty());
  CHECK(dom.find("&lt;script&gt;console.error") != std::string::npos);
  // Filtered and sorted from the link: the rejected tasks (1, 7, 11, 17, 21,
  // 27 of the synthetic cycle), rollout-1 steps descending.
  std::string sorted =
      b.Run("--virtual-time-budget=5000 --dump-dom", "file://" + report + "/index.html#status=rejected&sort=-6");
  CHECK(b.ConsoleLines().empty());
  std::regex cells("<td class=\"o-([a-z_]+)\">[^<]*</td><td>[^<]*</td><td class=\"n\">([0-9]*)</td>");
  std::vector<std::string> seen;
  for (std::sregex_iterator it(sorted.begin(), sorted.end(), cells), end; it != end; ++it) {
    CHECK((*it)[1] == "rejected");
    seen.push_back((*it)[2]);
  }
  CHECK(seen == std::vector<std::string>{"9", "7", "6", "4", "3", "3"});

  const std::string index_no_js = WithoutScript(report + "/index.html");
  const std::string task_no_js = WithoutScript(task);
  std::string index = b.Run("--dump-dom", "file://" + index_no_js);
  CHECK(index.find("id=\"pageinfo\"></span>") != std::string::npos);  // the table's script did not run
  CHECK(index.find("<table class=\"funnel\" id=\"funnel\">") != std::string::npos);
  std::regex link("<a href=\"tasks/[^\"]+\\.html\">");
  CHECK(std::distance(std::sregex_iterator(index.begin(), index.end(), link), std::sregex_iterator()) == 10);
  CHECK(index.find("<svg") != std::string::npos);
  std::string page = b.Run("--dump-dom", "file://" + task_no_js);
  CHECK(page.find("<pre class=\"diff\"><span class=\"f\">diff --git") != std::string::npos);
  CHECK(page.find("<span class=\"a\">+") != std::string::npos);
  b.Run("--window-size=1280,2200 --screenshot=" + art + "/task-nojs.png", "file://" + task_no_js);
  b.Run("--window-size=1280,2200 --screenshot=" + art + "/index-nojs.png", "file://" + index_no_js);
  CHECK(std::filesystem::file_size(art + "/index-nojs.png") > 0);
}

// An EVAL_DIR as `seragen eval` leaves it: the header, then one line per
// rollout; task k of n resolves in `resolved_tasks` of them.
void WriteEvalDir(const std::string& dir, const std::string& label, int resolved_tasks) {
  std::filesystem::create_directories(dir);
  std::string text =
      json{{"format", "seragen-eval"}, {"version", 1},          {"model", label + "-id"}, {"label", label},
           {"run_dir", "/runs/x"},     {"verify_rule", "sera"}, {"threshold", 0.5}}
          .dump() +
      "\n";
  for (int task = 0; task < 6; ++task) {
    for (int seed = 0; seed < 2; ++seed) {
      const bool resolved = task < resolved_tasks;
      text += json{{"task_id", "task" + std::to_string(task)},
                   {"seed", seed},
                   {"exit", "submitted"},
                   {"submitted", true},
                   {"recall", resolved ? 1.0 : 0.2},
                   {"resolved", resolved},
                   {"prompt_tokens", 1000 + 100 * task},
                   {"wall_seconds", 2.5}}
                  .dump() +
              "\n";
    }
  }
  REQUIRE(WriteFileAtomic(dir + "/results.jsonl", text).ok());
}

TEST_CASE("browser: the comparison page of three evaluations loads from disk with no console errors", "[browser]") {
  testing::TempDir dir;
  WriteEvalDir(dir.Sub("teacher"), "teacher", 5);
  WriteEvalDir(dir.Sub("base"), "base <script>console.error('injected')</script>", 1);
  WriteEvalDir(dir.Sub("tuned"), "tuned", 4);
  std::string out;
  const std::string page = dir.Sub("compare.html");
  REQUIRE(testing::RunShell(Binary() + " eval --compare " + dir.Sub("teacher") + " " + dir.Sub("base") + " " +
                                dir.Sub("tuned") + " --html " + page,
                            &out) == 0);
  Browser b;
  const std::string art = ArtifactDir();
  b.Run("--window-size=1280,1400 --screenshot=" + art + "/eval-compare.png", "file://" + page);
  CHECK(b.ConsoleLines().empty());
  CHECK(std::filesystem::file_size(art + "/eval-compare.png") > 0);
  std::string dom = b.Run("--virtual-time-budget=2000 --dump-dom", "file://" + page);
  CHECK(b.ConsoleLines().empty());  // the hostile label did not run
  CHECK(dom.find("&lt;script&gt;console.error") != std::string::npos);
  std::regex model_row("<tr><td><b>[^<]*</b>");
  CHECK(std::distance(std::sregex_iterator(dom.begin(), dom.end(), model_row), std::sregex_iterator()) == 3);
  CHECK(dom.find("83.3%") != std::string::npos);  // the teacher: 5 of 6 tasks
  std::regex task_row("<tr><td><code>task[0-9]</code></td>");
  CHECK(std::distance(std::sregex_iterator(dom.begin(), dom.end(), task_row), std::sregex_iterator()) == 6);
}

}  // namespace
}  // namespace seragen::e2e
