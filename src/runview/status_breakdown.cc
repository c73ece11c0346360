#include "seragen/runview/status_breakdown.h"

#include <fmt/format.h>

#include <unordered_map>

#include "seragen/journal/outcomes.h"
#include "seragen/journal/run_journals.h"
#include "seragen/runview/run_state.h"

namespace seragen::runview {
namespace {

std::vector<ShardProgress> ShardsOf(const RunState& run) {
  std::vector<ShardProgress> out;
  int n = 0;
  for (const ShardState& s : run.shards) n = std::max(n, s.journal.header.shards);
  if (n < 1) return out;
  out.resize(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    out[k].index = k;
    out[k].count = n;
  }
  for (std::size_t i = 0; i < run.plan.size(); ++i) out[journal::ShardOf(i, n)].planned++;
  for (const ShardState& s : run.shards) {
    int k = s.journal.header.shard;
    if (k < 0 || k >= n) continue;
    out[k].has_journal = true;
    out[k].done = s.tasks.finished_count();
  }
  return out;
}

void Line(std::string& out, const char* name, const std::map<std::string, Acceptance>& m) {
  if (m.empty()) return;
  out += fmt::format("{:<11}", name);
  bool first = true;
  for (const auto& [k, a] : m) {
    double pct = a.verified ? 100.0 * static_cast<double>(a.accepted) / static_cast<double>(a.verified) : 0.0;
    out += fmt::format("{}{} {}/{} ({:.0f}%)", first ? "" : ", ", k, a.accepted, a.verified, pct);
    first = false;
  }
  out += "\n";
}

}  // namespace

StatusBreakdown ComputeBreakdown(const RunState& run, std::int64_t spent_tokens) {
  StatusBreakdown b;
  std::unordered_map<std::string_view, const callgraph::PlannedTask*> by_id;
  for (const auto& t : run.plan) by_id.emplace(t.task_id, &t);
  run.ForEachTask([&](const ShardState&, const journal::TaskProgress& p) {
    if (p.last.stage != journal::Stage::kVerified) return;
    auto t = by_id.find(p.task_id);
    if (t == by_id.end()) return;
    const bool accepted = journal::IsAccepted(p.last);
    const std::string category = run.settings.CategoryName(journal::AttemptCategory(p, t->second->category));
    for (Acceptance* a : {&b.by_category[category], &b.by_repo[t->second->repo]}) {
      a->verified++;
      if (accepted) a->accepted++;
    }
    if (accepted) b.accepted++;
  });
  b.shards = ShardsOf(run);
  if (b.accepted > 0) b.tokens_per_accepted = static_cast<double>(spent_tokens) / static_cast<double>(b.accepted);
  return b;
}

double EtaMinutes(std::size_t remaining, double tasks_per_minute) {
  if (tasks_per_minute <= 0) return -1;
  return static_cast<double>(remaining) / tasks_per_minute;
}

std::string FormatEta(double minutes) {
  if (minutes < 0) return "ETA unknown";
  if (minutes < 1) return fmt::format("ETA {:.0f}s", minutes * 60);
  if (minutes < 120) return fmt::format("ETA {:.0f} min", minutes);
  auto total = static_cast<long long>(minutes + 0.5);
  return fmt::format("ETA {}h {:02}m", total / 60, total % 60);
}

std::string FormatBreakdown(const StatusBreakdown& b) {
  std::string out;
  Line(out, "category", b.by_category);
  Line(out, "repository", b.by_repo);
  if (b.accepted > 0) out += fmt::format("per accept {:.0f} tokens per accepted trajectory\n", b.tokens_per_accepted);
  std::string incomplete;
  for (const ShardProgress& s : b.shards) {
    if (s.complete()) continue;
    incomplete += fmt::format("{}{}/{} ({} of {} done{})", incomplete.empty() ? "" : ", ", s.index, s.count, s.done,
                              s.planned, s.has_journal ? "" : ", never ran");
  }
  if (!incomplete.empty()) out += "incomplete shards " + incomplete + "\n";
  return out;
}

}  // namespace seragen::runview
