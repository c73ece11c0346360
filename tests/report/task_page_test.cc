#include "report/task_page.h"

#include <catch2/catch.hpp>

#include "report/synthetic_run.h"
#include "seragen/verify/scores.h"
#include "testing/temp_dir.h"

namespace seragen::report {
namespace {

TEST_CASE("MarkChangedLines marks P1's lines that P2 has, counting repeats", "[report]") {
  std::string p1 = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a = 1\n+a = 2\n+a = 2\n context\n-b\n";
  std::string p2 = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a = 1\n+a = 2\n+c\n";
  auto marked = MarkChangedLines(p1, p2);
  REQUIRE(marked.size() == 4);
  CHECK(marked[0].line == "-a = 1");
  CHECK(marked[0].matched);
  CHECK(marked[1].matched);
  CHECK_FALSE(marked[2].matched);  // the second "+a = 2": P2 has only one
  CHECK_FALSE(marked[3].matched);
  std::size_t matched = 0;
  for (const auto& m : marked) matched += m.matched;
  CHECK(matched == verify::ScorePatches(p1, p2, verify::VerifyRule::kSera).matched);
}

TEST_CASE("DiffHtml gives every line a class and escapes it", "[report]") {
  std::string html = DiffHtml("diff --git a/x b/x\n@@ -1 +1 @@\n-<old>\n+<new>\n ctx\n");
  CHECK(html.find("<span class=\"f\">diff --git a/x b/x</span>") != std::string::npos);
  CHECK(html.find("<span class=\"h\">@@ -1 +1 @@</span>") != std::string::npos);
  CHECK(html.find("<span class=\"d\">-&lt;old&gt;</span>") != std::string::npos);
  CHECK(html.find("<span class=\"a\">+&lt;new&gt;</span>") != std::string::npos);
  CHECK(html.find("<span class=\"c\"> ctx</span>") != std::string::npos);
}

TEST_CASE("a task page shows both rollouts, the issue and the scores, with hostile text escaped", "[report]") {
  seragen::testing::TempDir dir;
  testing::SyntheticRunOptions o;
  o.tasks = 3;
  REQUIRE(testing::MakeSyntheticRun(dir.Sub("run"), o).ok());
  auto view = LoadRunView(dir.Sub("run"));
  REQUIRE(view.ok());
  const TaskRow& row = view->rows[0];
  DemoIndex demos(*view);
  TaskDetail detail = LoadTaskDetail(*view, row, nullptr, &demos);
  REQUIRE(detail.r1);
  REQUIRE(detail.r2);
  REQUIRE(detail.issue);
  std::string page = RenderTaskPage(*view, row, detail);
  // The only <script in a task page would be one from the run: there is none.
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("&lt;script&gt;console.error(&#39;injected&#39;)&lt;/script&gt;&lt;img") != std::string::npos);
  CHECK(page.find("<img") == std::string::npos);
  CHECK(page.find("\x1b") == std::string::npos);
  for (const char* id : {"id=\"function\"", "id=\"rollout1\"", "id=\"p1\"", "id=\"issue\"", "id=\"rollout2\"",
                         "id=\"p2\"", "id=\"verification\""}) {
    CHECK(page.find(id) != std::string::npos);
  }
  CHECK(page.find("recall <b>1.000</b>") != std::string::npos);
  CHECK(page.find("<span class=\"m\">") != std::string::npos);
  CHECK(page.find("<code>tidepool-short</code> (source: builtin)") != std::string::npos);
  // The builtin demonstration's own text (prompts/demo_issues/builtin.jsonl).
  REQUIRE(detail.demo_issue);
  CHECK(page.find("Schedule.next_run()") != std::string::npos);
  CHECK(page.find("<details class=\"step\">") != std::string::npos);
  // A collapsed step shows the command it ran.
  CHECK(page.find("· bash <code>cat mod.py</code></summary>") != std::string::npos);
}

TEST_CASE("a task page of a task not started yet says so", "[report]") {
  seragen::testing::TempDir dir;
  testing::SyntheticRunOptions o;
  o.tasks = 10;
  REQUIRE(testing::MakeSyntheticRun(dir.Sub("run"), o).ok());
  auto view = LoadRunView(dir.Sub("run"));
  REQUIRE(view.ok());
  const TaskRow& row = view->rows[9];
  REQUIRE(row.OutcomeName() == "planned");
  std::string page = RenderTaskPage(*view, row, LoadTaskDetail(*view, row, nullptr));
  CHECK(page.find("no trajectory (yet)") != std::string::npos);
  CHECK(page.find("not verified (yet)") != std::string::npos);
}

}  // namespace
}  // namespace seragen::report
