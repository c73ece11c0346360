#include "seragen/eval/eval_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "seragen/base/rng.h"

namespace seragen::eval {
namespace {

constexpr double kZ95 = 1.959963984540054;

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

// A rate's interval: the union of the task-clustered bootstrap and Wilson's
// interval on the pooled rate with n = tasks, so a rate of 0 or 1 on a few
// tasks still gets an honest width.
Interval RateInterval(const std::vector<double>& per_task) {
  Interval boot = BootstrapMean(per_task);
  Interval wilson = Wilson(Mean(per_task) * static_cast<double>(per_task.size()), static_cast<double>(per_task.size()));
  return {std::min(boot.lo, wilson.lo), std::max(boot.hi, wilson.hi)};
}

// "tests pass 75.0% [30.1, 95.4] over 4 task(s), no signal 1, unavailable 0", or "n/a".
std::string TestsLine(const EvalSummary& s) {
  std::string line = fmt::format("{:<24} tests pass ", "");
  if (s.tests_pass_rate) {
    line += fmt::format("{:.1f}% [{:.1f}, {:.1f}] over {} task(s)", 100 * *s.tests_pass_rate, 100 * s.tests_ci95->lo,
                        100 * s.tests_ci95->hi, s.tests_tasks);
  } else {
    line += "n/a";
  }
  if (s.tests_no_signal + s.tests_unavailable > 0) {
    line += fmt::format(", no signal {}, unavailable {}", s.tests_no_signal, s.tests_unavailable);
  }
  return line + "\n";
}

nlohmann::ordered_json IntervalJson(const Interval& i) { return nlohmann::ordered_json::array({i.lo, i.hi}); }

}  // namespace

Interval Wilson(double k, double n) {
  if (n <= 0) return {0, 1};
  const double p = k / n, z2 = kZ95 * kZ95;
  const double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = kZ95 * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

Interval BootstrapMean(const std::vector<double>& values) {
  if (values.empty()) return {0, 1};
  Rng rng = Rng::Derive(0, "", "eval-bootstrap");
  std::vector<double> means;
  means.reserve(kBootstrapResamples);
  const std::size_t n = values.size();
  for (int b = 0; b < kBootstrapResamples; ++b) {
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += values[static_cast<std::size_t>(rng.Uniform(n))];
    means.push_back(sum / static_cast<double>(n));
  }
  std::sort(means.begin(), means.end());
  auto at = [&](double q) {
    return means[std::min(means.size() - 1, static_cast<std::size_t>(q * static_cast<double>(means.size())))];
  };
  return {at(0.025), at(0.975)};
}

EvalSummary Summarize(const EvalHeader& header, const std::vector<EvalResult>& results, const std::string& eval_dir) {
  EvalSummary s;
  s.label = header.label.empty() ? header.model : header.label;
  s.model = header.model;
  s.eval_dir = eval_dir;
  std::map<std::string, std::vector<const EvalResult*>> by_task;
  std::set<std::pair<std::string, int>> seen;  // a (task, seed) logged twice counts once
  for (const EvalResult& r : results) {
    if (seen.emplace(r.task_id, r.seed).second) by_task[r.task_id].push_back(&r);
  }
  std::vector<double> resolved, recall, tests, tokens, wall;
  for (const auto& [task, rs] : by_task) {
    TaskOutcome o;
    bool no_signal = false, unavailable = false;
    for (const EvalResult* r : rs) {
      ++o.rollouts;
      o.resolved += r->resolved ? 1 : 0;
      o.mean_recall += r->recall;
      o.tokens += r->prompt_tokens + r->completion_tokens;
      o.wall_seconds += r->wall_seconds;
      if (r->tests_passed) ++o.tests_rollouts, o.tests_passed += *r->tests_passed ? 1 : 0;
      if (r->tests && r->tests->agreement.verdict == verify::TestVerdict::kNoSignal) no_signal = true;
      if (r->tests && r->tests->agreement.verdict == verify::TestVerdict::kUnavailable) unavailable = true;
    }
    o.mean_recall /= static_cast<double>(o.rollouts);
    resolved.push_back(static_cast<double>(o.resolved) / static_cast<double>(o.rollouts));
    recall.push_back(o.mean_recall);
    tokens.push_back(static_cast<double>(o.tokens));
    wall.push_back(o.wall_seconds);
    if (o.tests_rollouts > 0) {
      tests.push_back(static_cast<double>(o.tests_passed) / static_cast<double>(o.tests_rollouts));
    } else {
      s.tests_no_signal += no_signal ? 1 : 0;
      s.tests_unavailable += no_signal ? 0 : unavailable ? 1 : 0;
    }
    s.n_rollouts += o.rollouts;
    s.tasks[task] = o;
  }
  s.n_tasks = by_task.size();
  s.resolve_rate = Mean(resolved);
  s.resolve_ci95 = RateInterval(resolved);
  s.mean_recall = Mean(recall);
  s.recall_ci95 = BootstrapMean(recall);
  s.tests_tasks = tests.size();
  if (!tests.empty()) {
    s.tests_pass_rate = Mean(tests);
    s.tests_ci95 = RateInterval(tests);
  }
  s.tokens_per_task = Mean(tokens);
  s.wall_seconds_per_task = Mean(wall);
  return s;
}

std::string SummaryJson(const std::vector<EvalSummary>& summaries) {
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  for (const EvalSummary& s : summaries) {
    nlohmann::ordered_json m = {
        {"label", s.label},
        {"model", s.model},
        {"eval_dir", s.eval_dir},
        {"n_tasks", s.n_tasks},
        {"n_rollouts", s.n_rollouts},
        {"resolve_rate", s.resolve_rate},
        {"resolve_rate_ci95", IntervalJson(s.resolve_ci95)},
        {"mean_recall", s.mean_recall},
        {"mean_recall_ci95", IntervalJson(s.recall_ci95)},
        {"tests_pass_rate", s.tests_pass_rate ? nlohmann::ordered_json(*s.tests_pass_rate) : nlohmann::ordered_json()},
        {"tests_pass_rate_ci95", s.tests_ci95 ? IntervalJson(*s.tests_ci95) : nlohmann::ordered_json()},
        {"tests_n_tasks", s.tests_tasks},
        {"tests_no_signal", s.tests_no_signal},
        {"tests_unavailable", s.tests_unavailable},
        {"ci95", {{"resolve_rate", IntervalJson(s.resolve_ci95)}, {"mean_recall", IntervalJson(s.recall_ci95)}}},
        {"tokens_per_task", s.tokens_per_task},
        {"wall_seconds_per_task", s.wall_seconds_per_task}};
    if (s.tests_ci95) m["ci95"]["tests_pass_rate"] = IntervalJson(*s.tests_ci95);
    nlohmann::ordered_json tasks = nlohmann::ordered_json::object();
    for (const auto& [id, o] : s.tasks) {
      tasks[id] = {{"rollouts", o.rollouts},         {"resolved", o.resolved},
                   {"mean_recall", o.mean_recall},   {"tokens", o.tokens},
                   {"wall_seconds", o.wall_seconds}, {"tests_rollouts", o.tests_rollouts},
                   {"tests_passed", o.tests_passed}};
    }
    m["tasks"] = tasks;
    models.push_back(m);
  }
  nlohmann::ordered_json j = {{"interval",
                               "95%: union of a task-clustered percentile bootstrap (2000 resamples) and "
                               "Wilson on the pooled rate with n = tasks; recall: the bootstrap"},
                              {"models", models}};
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string FormatComparison(const std::vector<EvalSummary>& summaries) {
  std::string out = fmt::format("{:<24} {:>7} {:>9}  {:<15} {:>11}  {:<15} {:>12} {:>10}\n", "model", "tasks",
                                "rollouts", "resolve rate", "", "mean recall", "tokens/task", "s/task");
  for (const EvalSummary& s : summaries) {
    out += fmt::format(
        "{:<24} {:>7} {:>9}  {:>6.1f}% [{:>5.1f}, {:>5.1f}]  {:>6.3f} [{:.3f}, {:.3f}] {:>12.0f} {:>10.1f}\n",
        s.label.substr(0, 24), s.n_tasks, s.n_rollouts, 100 * s.resolve_rate, 100 * s.resolve_ci95.lo,
        100 * s.resolve_ci95.hi, s.mean_recall, s.recall_ci95.lo, s.recall_ci95.hi, s.tokens_per_task,
        s.wall_seconds_per_task);
    out += TestsLine(s);
  }
  std::set<std::string> ids;
  for (const EvalSummary& s : summaries) {
    for (const auto& [id, o] : s.tasks) ids.insert(id);
  }
  out += "\nper task (resolved/rollouts, mean recall):\n";
  out += fmt::format("{:<22}", "task");
  for (const EvalSummary& s : summaries) out += fmt::format(" {:>16}", s.label.substr(0, 16));
  out += "\n";
  for (const std::string& id : ids) {
    out += fmt::format("{:<22}", id.substr(0, 22));
    for (const EvalSummary& s : summaries) {
      auto it = s.tasks.find(id);
      out += it == s.tasks.end() ? fmt::format(" {:>16}", "-")
                                 : fmt::format(" {:>16}", fmt::format("{}/{} {:.2f}", it->second.resolved,
                                                                      it->second.rollouts, it->second.mean_recall));
    }
    out += "\n";
  }
  out += "intervals: 95%, tasks as the unit (docs/EVAL.md)\n";
  return out;
}

}  // namespace seragen::eval
