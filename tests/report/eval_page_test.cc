#include "seragen/report/eval_page.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace seragen::report {
namespace {

eval::EvalSummary Model(const std::string& label, double rate, eval::Interval ci) {
  return eval::EvalSummary{.label = label,
                           .model = label + "-id",
                           .eval_dir = "/runs/x/eval-" + label,
                           .n_tasks = 2,
                           .n_rollouts = 4,
                           .resolve_rate = rate,
                           .resolve_ci95 = ci,
                           .mean_recall = rate,
                           .recall_ci95 = ci,
                           .tokens_per_task = 12345.4,
                           .wall_seconds_per_task = 7.25};
}

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST_CASE("eval page: models side by side with intervals, cost per task, and one row per task", "[report]") {
  eval::EvalSummary teacher = Model("teacher", 0.75, {0.3, 0.95});
  teacher.tasks["t1"] = {2, 2, 1.0, 900, 3.5};
  teacher.tasks["t2"] = {2, 1, 0.5, 800, 2.0};
  eval::EvalSummary tuned = Model("tuned", 0.25, {0.0, 0.7});
  tuned.tests_pass_rate = 0.5;
  tuned.tests_ci95 = eval::Interval{0.1, 0.9};
  tuned.tests_tasks = 3;
  tuned.tasks["t1"] = {2, 0, 0.0, 700, 1.0};
  const std::string page = RenderEvalComparison({teacher, tuned});
  CHECK(page.find("<title>Evaluation: teacher vs tuned</title>") != std::string::npos);
  // The models' table: rate, interval, recall, tests (where recorded), tokens and seconds per task.
  CHECK(page.find("<td class=\"n\">75.0%</td><td class=\"n\">30.0–95.0%</td>") != std::string::npos);
  CHECK(page.find("<td class=\"n\">0.250</td><td class=\"n\">0.000–0.700</td>") != std::string::npos);
  CHECK(page.find("title=\"over 3 task(s) with a test signal; no signal 0, unavailable 0\">50.0%</td><td "
                  "class=\"n\">10.0–90.0%</td>") != std::string::npos);
  CHECK(page.find("<td class=\"n\">n/a</td><td class=\"n\">n/a</td><td class=\"n\">12,345</td>") != std::string::npos);
  CHECK(page.find("<td class=\"n\">7.2</td>") != std::string::npos);
  CHECK(Count(page, "<svg") == 2);  // resolve rate and mean recall
  // The per-task table: every task once; all resolved green, none red, a model without the task a dash.
  CHECK(page.find("Per task (2)") != std::string::npos);
  CHECK(page.find("<td class=\"n m\" title=\"900 tokens, 3.5 s\">2/2</td><td class=\"n\">1.00</td>") !=
        std::string::npos);
  CHECK(page.find("<td class=\"n\" title=\"800 tokens, 2.0 s\">1/2</td><td class=\"n\">0.50</td>") !=
        std::string::npos);
  CHECK(page.find("<td class=\"n u\" title=\"700 tokens, 1.0 s\">0/2</td>") != std::string::npos);
  CHECK(page.find("<tr><td><code>t2</code></td><td class=\"n\" title=\"800 tokens, 2.0 s\">1/2</td>"
                  "<td class=\"n\">0.50</td><td class=\"n\">–</td><td class=\"n\">–</td></tr>") != std::string::npos);
  CHECK(page.find("<script") == std::string::npos);
}

TEST_CASE("eval page: labels, model ids, directories and task ids from the logs stay text", "[report]") {
  eval::EvalSummary m = Model("<script>alert(1)</script>", 0.5, {0.1, 0.9});
  m.model = "\"><img src=x onerror=alert(2)>";
  m.eval_dir = "/tmp/<b>";
  m.tasks["<i>t</i>"] = {1, 1, 1.0, 1, 1.0};
  const std::string page = RenderEvalComparison({m});
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("<img") == std::string::npos);
  CHECK(page.find("/tmp/<b>") == std::string::npos);
  CHECK(page.find("/tmp/&lt;b&gt;") != std::string::npos);
  CHECK(page.find("<i>t</i>") == std::string::npos);
  CHECK(page.find("&lt;i&gt;t&lt;/i&gt;") != std::string::npos);
  CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
}

}  // namespace
}  // namespace seragen::report
