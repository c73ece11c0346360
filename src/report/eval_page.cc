#include "seragen/report/eval_page.h"

#include <fmt/format.h>

#include <set>

#include "report/charts.h"
#include "report/html.h"

namespace seragen::report {
namespace {

constexpr std::size_t kMaxCellBytes = 120;

std::string E(std::string_view s) { return Escape(Clip(s, kMaxCellBytes)); }

std::string Percent(double v) { return fmt::format("{:.1f}%", 100 * v); }

std::string PercentInterval(const eval::Interval& i) { return fmt::format("{:.1f}–{:.1f}%", 100 * i.lo, 100 * i.hi); }

std::string Title(const std::vector<eval::EvalSummary>& models) {
  std::string title = "Evaluation:";
  for (std::size_t i = 0; i < models.size(); ++i) title += (i == 0 ? " " : " vs ") + Clip(models[i].label, 40);
  return title;
}

std::string ModelRow(const eval::EvalSummary& m) {
  // Absent (no test command, or no task with a test signal) is "n/a", never 0.
  const std::string tests =
      m.tests_pass_rate ? fmt::format(
                              "<td class=\"n\" title=\"over {} task(s) with a test signal; no signal {}, unavailable "
                              "{}\">{}</td><td class=\"n\">{}</td>",
                              m.tests_tasks, m.tests_no_signal, m.tests_unavailable, Percent(*m.tests_pass_rate),
                              PercentInterval(*m.tests_ci95))
                        : "<td class=\"n\">n/a</td><td class=\"n\">n/a</td>";
  return fmt::format(
      "<tr><td><b>{}</b><div class=\"note\">{} · <code>{}</code></div></td><td class=\"n\">{}</td>"
      "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.3f}</td>"
      "<td class=\"n\">{:.3f}–{:.3f}</td>{}<td class=\"n\">{}</td><td class=\"n\">{:.1f}</td></tr>\n",
      E(m.label), E(m.model), E(m.eval_dir), m.n_tasks, m.n_rollouts, Percent(m.resolve_rate),
      PercentInterval(m.resolve_ci95), m.mean_recall, m.recall_ci95.lo, m.recall_ci95.hi, tests,
      Thousands(static_cast<long long>(m.tokens_per_task + 0.5)), m.wall_seconds_per_task);
}

std::string ModelsTable(const std::vector<eval::EvalSummary>& models) {
  std::string out =
      "<h2>Models</h2><table id=\"models\"><thead><tr><th>model</th><th class=\"n\">tasks</th>"
      "<th class=\"n\">rollouts</th><th class=\"n\">resolve rate</th><th class=\"n\">95% interval</th>"
      "<th class=\"n\">mean recall</th><th class=\"n\">95% interval</th><th class=\"n\">tests pass</th>"
      "<th class=\"n\">95% interval</th><th class=\"n\">tokens / task</th><th class=\"n\">wall s / task</th>"
      "</tr></thead><tbody>\n";
  for (const eval::EvalSummary& m : models) out += ModelRow(m);
  return out + "</tbody></table>";
}

std::string Charts(const std::vector<eval::EvalSummary>& models) {
  std::vector<Bar> resolve, recall;
  for (const eval::EvalSummary& m : models) {
    // Short notes: the chart leaves about 90 pixels after the longest bar.
    resolve.push_back(
        {m.label, m.resolve_rate, fmt::format("{:.0f}–{:.0f}%", 100 * m.resolve_ci95.lo, 100 * m.resolve_ci95.hi)});
    recall.push_back({m.label, m.mean_recall, fmt::format("{:.2f}–{:.2f}", m.recall_ci95.lo, m.recall_ci95.hi)});
  }
  BarChartOptions o;
  o.ratio = true;
  o.width = 560;
  return "<div class=\"charts\">" + ChartBox("Resolve rate (95% interval)", BarChartSvg("Resolve rate", resolve, o)) +
         ChartBox("Mean recall (95% interval)", BarChartSvg("Mean recall", recall, o)) + "</div>";
}

// One model's cells of a task row: resolved/rollouts (green when every
// rollout resolved, red when none did) and the mean recall.
std::string TaskCells(const eval::EvalSummary& m, const std::string& task_id) {
  auto it = m.tasks.find(task_id);
  if (it == m.tasks.end()) return "<td class=\"n\">–</td><td class=\"n\">–</td>";
  const eval::TaskOutcome& o = it->second;
  const char* css = o.resolved == o.rollouts ? " m" : o.resolved == 0 ? " u" : "";
  return fmt::format("<td class=\"n{}\" title=\"{} tokens, {:.1f} s\">{}/{}</td><td class=\"n\">{:.2f}</td>", css,
                     Thousands(o.tokens), o.wall_seconds, o.resolved, o.rollouts, o.mean_recall);
}

std::string TaskTable(const std::vector<eval::EvalSummary>& models) {
  std::set<std::string> ids;
  for (const eval::EvalSummary& m : models) {
    for (const auto& [id, o] : m.tasks) ids.insert(id);
  }
  std::string out = fmt::format(
      "<h2>Per task ({})</h2><p class=\"note\">resolved/rollouts and mean recall per model; "
      "a cell's tooltip holds its tokens and wall time.</p><table id=\"per-task\"><thead><tr><th "
      "rowspan=\"2\">task</th>",
      ids.size());
  for (const eval::EvalSummary& m : models) out += fmt::format("<th colspan=\"2\">{}</th>", E(m.label));
  out += "</tr><tr>";
  for (std::size_t i = 0; i < models.size(); ++i) out += "<th class=\"n\">resolved</th><th class=\"n\">recall</th>";
  out += "</tr></thead><tbody>\n";
  for (const std::string& id : ids) {
    out += fmt::format("<tr><td><code>{}</code></td>", E(id));
    for (const eval::EvalSummary& m : models) out += TaskCells(m, id);
    out += "</tr>\n";
  }
  return out + "</tbody></table>";
}

}  // namespace

std::string RenderEvalComparison(const std::vector<eval::EvalSummary>& models) {
  const std::string title = Title(models);
  std::string out = PageHead(title);
  out += "<h1>" + Escape(title) + "</h1>";
  out +=
      "<p class=\"note\">A rollout resolves a task when it handed in a patch whose recall of the reference's changed "
      "lines reaches the run's threshold. Rates are means over tasks; 95% intervals treat tasks as the unit (seeds "
      "of one task are correlated): a task-clustered bootstrap joined with Wilson's interval (docs/EVAL.md). Compare "
      "models evaluated on the same tasks.</p>";
  out += ModelsTable(models) + Charts(models) + TaskTable(models);
  return out + PageTail();
}

}  // namespace seragen::report
