#include "report/index_charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/charts.h"
#include "report/html.h"
#include "seragen/runview/cost_ledger.h"
#include "seragen/runview/status_breakdown.h"

namespace seragen::report {
namespace {

constexpr std::size_t kHistogramBins = 20;
constexpr std::size_t kMaxDropReasons = 12;

std::string Kv(std::string_view key, const std::string& value_html) {
  return fmt::format("<tr><td>{}</td><td>{}</td></tr>", key, value_html);
}

std::string Count(std::size_t n) { return Thousands(static_cast<long long>(n)); }

std::string MapLine(const std::map<std::string, std::size_t>& m) {
  if (m.empty()) return "—";
  std::string out;
  for (const auto& [k, n] : m) out += (out.empty() ? "" : ", ") + Count(n) + " " + Escape(Clip(k, 120));
  return out;
}

std::string Drops(const std::map<std::string, std::size_t>& drops) {
  std::vector<std::pair<std::size_t, std::string>> sorted;
  for (const auto& [why, n] : drops) sorted.emplace_back(n, why);
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (std::size_t i = 0; i < sorted.size() && i < kMaxDropReasons; ++i) {
    out += (out.empty() ? "" : ", ") + Count(sorted[i].first) + " " + Escape(Clip(sorted[i].second, 160));
  }
  if (sorted.size() > kMaxDropReasons) out += fmt::format(", … ({} more reasons)", sorted.size() - kMaxDropReasons);
  return out;
}

std::string FunnelTable(const RunView& view) {
  Funnel f = ComputeFunnel(view.rows);
  const char* labels[] = {"planned",       "rollout 1 submitted", "judged (passed)",
                          "issue written", "rollout 2 submitted", "accepted"};  // not an outcome: step labels
  std::string out =
      "<table class=\"funnel\" id=\"funnel\"><thead><tr><th>step</th><th class=\"n\">tasks</th><th "
      "class=\"n\">of planned</th><th></th><th>dropped before this step (why)</th></tr></thead><tbody>";
  double planned = static_cast<double>(std::max<std::size_t>(1, f.counts[0]));
  for (std::size_t s = 0; s < kFunnelStepCount; ++s) {
    double pct = 100.0 * static_cast<double>(f.counts[s]) / planned;
    out += fmt::format(
        "<tr data-step=\"{}\"><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1f}%</td><td class=\"bar\"><div "
        "class=\"b\" style=\"width:{:.1f}%\"></div></td><td>{}</td></tr>",
        kFunnelSteps[s], labels[s], Count(f.counts[s]), pct, pct, s == 0 ? "" : Drops(f.drops[s]));
  }
  return out + "</tbody></table>";
}

std::string Wall(const RunView& view) {
  if (view.first_record_at.empty()) return "no records yet";
  return Escape(Clip(view.first_record_at, 40)) + " → " + Escape(Clip(view.last_record_at, 40));
}

std::string TokensTable(const runview::StatusReport& s) {
  std::string t = "<table class=\"kv\" id=\"tokens\">";
  t += Kv("prompt tokens", Thousands(s.prompt_tokens) + " (" + Thousands(s.cached_tokens) + " cached)");
  t += Kv("completion tokens", Thousands(s.completion_tokens));
  t += Kv("model calls", Thousands(s.model_calls));
  for (const runview::CostLine& line : runview::CostLines(s.cost)) t += Kv("cost " + line.label, line.value);
  if (s.cost.prices.priced()) t += Kv("cost basis", Escape(runview::CostBasis(s.cost)));
  if (s.breakdown.accepted > 0)
    t += Kv("tokens per accepted", Thousands(static_cast<long long>(s.breakdown.tokens_per_accepted)));
  std::string cache;
  for (const auto& [stage, c] : s.tokens.cache_by_stage) {
    cache += (cache.empty() ? "" : ", ") + fmt::format("{} {:.1f}%", Escape(stage), 100 * c.HitRate());
  }
  if (!cache.empty()) t += Kv("prompt cache hits", cache);
  std::string wasted;
  for (const auto& [why, n] : s.tokens.wasted)
    wasted += (wasted.empty() ? "" : ", ") + Thousands(n) + " " + Escape(why);
  if (!wasted.empty())
    t += Kv("tokens without an accepted trajectory", Thousands(s.tokens.wasted_total) + " (" + wasted + ")");
  return t + "</table>";
}

// The teacher model(s) the trajectories name, with their rollout counts, and
// a warning when the built-in scripted teacher wrote any of them.
std::string TeacherRows(const RunView& view) {
  std::map<std::string, std::size_t> rollouts;
  for (const TaskRow& row : view.rows) {
    for (const RolloutSummary* r : {&row.r1, &row.r2}) {
      if (r->present) rollouts[r->model]++;
    }
  }
  if (rollouts.empty()) return Kv("teacher model", "no trajectories yet");
  std::string models;
  bool scripted = false;
  for (const auto& [model, n] : rollouts) {
    models += fmt::format("{}<code>{}</code> ({} rollout{})", models.empty() ? "" : ", ", Escape(Clip(model, 200)), n,
                          n == 1 ? "" : "s");
    scripted = scripted || model.find("seragen-scripted-teacher") != std::string::npos;
  }
  std::string out = Kv(rollouts.size() == 1 ? "teacher model" : "teacher models", models);
  if (scripted) {
    out += Kv("warning",
              "<span class=\"bad\" id=\"scripted-teacher\">trajectories from seragen's built-in scripted "
              "teacher, a deterministic stand-in for a model: not training data</span>");
  }
  return out;
}

// One line per exported format: the secret scan's counts and hits by rule
// (names and counts only; docs/SECRETS.md).
std::string ExportSecretsRows(const runview::StatusReport& s) {
  std::string out;
  for (const auto& [format, c] : s.export_secrets) {
    std::string line = fmt::format("{} rows scanned, {} with hits ({} redacted, {} dropped, {} reported)",
                                   c.rows_scanned, c.rows_with_hits, c.rows_redacted, c.rows_dropped, c.rows_reported);
    std::string rules;
    for (const auto& [rule, n] : c.hits_by_rule) rules += (rules.empty() ? "" : ", ") + fmt::format("{} {}", n, rule);
    if (!rules.empty()) line += "; hits: " + rules;
    out += Kv("secrets (" + Escape(Clip(format, 20)) + " export)",
              "<span class=\"export-secrets\">" + Escape(Clip(line, 4000)) + "</span>");
  }
  return out;
}

}  // namespace

std::string OverviewSection(const RunView& view) {
  const runview::StatusReport& s = view.status;
  std::string out = "<h2 id=\"overview\">Overview</h2><table class=\"kv\" id=\"headline\">";
  out += Kv("tasks", fmt::format("<span id=\"n-planned\">{}</span> planned, <span id=\"n-started\">{}</span> started, "
                                 "<span id=\"n-finished\">{}</span> finished",
                                 Count(s.planned), Count(s.started), Count(s.finished)));
  out += TeacherRows(view);
  out += Kv("result", Escape(s.result));
  out += Kv("verified",
            MapLine(runview::CountsByName(s.verified)) + fmt::format(" · acceptance {:.1f}%", 100 * s.acceptance_rate));
  out += Kv("skipped", MapLine(runview::CountsByName(s.skipped)));
  std::string failures = "infrastructure: " + MapLine(runview::CountsByName(s.infra_failures)) +
                         "; model: " + MapLine(runview::CountsByName(s.model_failures));
  if (!s.config_failures.empty()) failures += "; configuration: " + MapLine(runview::CountsByName(s.config_failures));
  out += Kv("failures", failures);
  out += Kv("environment", fmt::format("<span id=\"n-env-broken\">{}</span> of {} rollouts could not import the "
                                       "repository's own code (env_broken)",
                                       Count(s.env_broken), Count(s.rollouts)));
  if (s.test_agreement.with_evidence > 0) {
    out += Kv("test evidence",
              "<span id=\"test-agreement\">" + Escape(runview::DescribeTestAgreement(s.test_agreement)) + "</span>");
  }
  out += Kv("records", Wall(view));
  out += ExportSecretsRows(s);
  if (s.tasks_per_minute > 0) {
    out += Kv("throughput", fmt::format("{:.2f} tasks/min{}", s.tasks_per_minute,
                                        s.finished < s.planned ? " · " + runview::FormatEta(s.eta_minutes) : ""));
  }
  out += Kv("shards", fmt::format("{}{}", s.shards,
                                  s.torn_tails ? fmt::format(" ({} journals end in a torn line)", s.torn_tails) : ""));
  out += Kv("recipe hash", "<code>" + Escape(Clip(view.recipe_hash, 100)) + "</code>");
  out += "</table><h3>Funnel</h3>" + FunnelTable(view) + "<h3>Tokens</h3>" + TokensTable(s);
  out += "<h3>Configuration</h3>";
  if (view.config_yaml.empty()) return out + "<p class=\"note\">no config.yaml in the run directory</p>";
  return out + "<details><summary>config.yaml of the run</summary>" +
         ClippedPre(view.config_yaml, "", {64 * 1024, 64 * 1024}) + "</details>";
}

namespace {

std::vector<Bar> AcceptanceBars(const std::map<std::string, runview::Acceptance>& m) {
  std::vector<std::pair<std::string, runview::Acceptance>> sorted(m.begin(), m.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.verified > b.second.verified; });
  std::vector<Bar> bars;
  for (const auto& [name, a] : sorted) {
    double rate = a.verified ? static_cast<double>(a.accepted) / static_cast<double>(a.verified) : 0;
    bars.push_back({name, rate, fmt::format("{}/{}", a.accepted, a.verified)});
  }
  return bars;
}

std::vector<Bar> CountBars(const std::map<std::string, std::size_t>& m) {
  std::vector<Bar> bars;
  for (const auto& [k, n] : m) bars.push_back({k, static_cast<double>(n), ""});
  std::stable_sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.value > b.value; });
  return bars;
}

std::string FormatErrorBucket(int n) {
  if (n <= 2) return std::to_string(n);
  return n <= 5 ? "3-5" : "6+";
}

struct Side {
  const RolloutSummary* summary;
  std::vector<double>* steps;
  std::vector<double>* tokens;
  const char* name;
};

}  // namespace

std::string ChartsSection(const RunView& view) {
  std::map<std::string, runview::Acceptance> by_dir;
  std::vector<double> steps1, steps2, tokens1, tokens2, recall;
  std::map<std::string, std::size_t> format_errors;
  for (const TaskRow& r : view.rows) {
    if (journal::IsVerifiedOutcome(r.outcome)) {
      auto& a = by_dir[r.Directory()];
      a.verified++;
      if (r.outcome == journal::Outcome::kAccepted) a.accepted++;
    }
    if (r.scores && r.scores->scorable) recall.push_back(r.scores->recall);
    for (const Side& side :
         {Side{&r.r1, &steps1, &tokens1, "rollout 1"}, Side{&r.r2, &steps2, &tokens2, "rollout 2"}}) {
      if (!side.summary->present) continue;
      side.steps->push_back(side.summary->steps);
      side.tokens->push_back(static_cast<double>(side.summary->tokens));
      format_errors[std::string(side.name) + ": " + FormatErrorBucket(side.summary->format_errors)]++;
    }
  }
  BarChartOptions ratio{.ratio = true};
  std::string out = "<h2 id=\"charts\">Charts</h2><div class=\"charts\">";
  out += ChartBox("Acceptance by bug category",
                  BarChartSvg("acceptance by category", AcceptanceBars(view.status.breakdown.by_category), ratio));
  out += ChartBox("Acceptance by repository",
                  BarChartSvg("acceptance by repository", AcceptanceBars(view.status.breakdown.by_repo), ratio));
  out += ChartBox("Acceptance by directory", BarChartSvg("acceptance by directory", AcceptanceBars(by_dir), ratio));
  out += ChartBox("Steps per rollout 1", HistogramSvg("steps rollout 1", MakeHistogram(steps1, kHistogramBins)));
  out += ChartBox("Steps per rollout 2", HistogramSvg("steps rollout 2", MakeHistogram(steps2, kHistogramBins)));
  out += ChartBox("Tokens per rollout 1", HistogramSvg("tokens rollout 1", MakeHistogram(tokens1, kHistogramBins)));
  out += ChartBox("Tokens per rollout 2", HistogramSvg("tokens rollout 2", MakeHistogram(tokens2, kHistogramBins)));
  out += ChartBox("Recall (scorable tasks)", HistogramSvg("recall", MakeHistogram(recall, 10)));
  out += ChartBox("Rollouts by format errors", BarChartSvg("format errors", CountBars(format_errors)));
  out += ChartBox("Rollout exit statuses", BarChartSvg("exit statuses", CountBars(view.status.rollout_exits)));
  return out + "</div>";
}

}  // namespace seragen::report
