#include "seragen/runview/status_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "runview/test_agreement_json.h"
#include "seragen/journal/outcomes.h"
#include "seragen/journal/run_paths.h"
#include "seragen/journal/shard_lock.h"
#include "seragen/runview/endpoint_occupancy.h"
#include "seragen/runview/run_result.h"

namespace seragen::runview {
namespace {

using journal::Stage;

std::map<journal::ErrorClass, std::size_t>& FailuresOf(journal::ErrorFamily family, StatusReport* r) {
  switch (family) {
    case journal::ErrorFamily::kInfra: return r->infra_failures;
    case journal::ErrorFamily::kConfig: return r->config_failures;
    default: return r->model_failures;
  }
}

template <typename Key, typename NameOf>
std::map<std::string, std::size_t> Named(const std::map<Key, std::size_t>& counts, NameOf name_of) {
  std::map<std::string, std::size_t> named;
  for (const auto& [key, n] : counts) named[std::string(name_of(key))] += n;
  return named;
}

std::size_t Sum(const std::map<journal::ErrorClass, std::size_t>& counts) {
  std::size_t n = 0;
  for (const auto& [k, v] : counts) n += v;
  return n;
}

// One task's latest record, counted once (the owner's copy).
void CountTask(const journal::TaskProgress& p, StatusReport* r) {
  r->started++;
  if (p.finished) r->finished++;
  r->by_stage[std::string(journal::StageName(p.last.stage))]++;
  if (std::optional<journal::Verdict> v = journal::VerdictOf(p.last.stage, p.last.status)) r->verified[*v]++;
  r->test_agreement.Add(p.last);
  if (p.last.stage == Stage::kSkipped) r->skipped[journal::ParseSkipReason(p.last.status)]++;
  if (p.last.stage == Stage::kFailed && p.last.error)
    FailuresOf(p.last.error->error_class.family, r)[p.last.error->error_class]++;
}

// Totals of every shard's records, and the span of their timestamps.
void AddShardTotals(const RunState& run, StatusReport* r, double* first, double* last) {
  for (const ShardState& shard : run.shards) {
    const ShardTotals& t = shard.totals;
    if (shard.journal.dropped_tail_bytes > 0) r->torn_tails++;
    const journal::TokenUsage tokens = t.tokens();
    r->prompt_tokens += tokens.prompt_tokens;
    r->completion_tokens += tokens.completion_tokens;
    r->cached_tokens += tokens.cached_prompt_tokens;
    r->model_calls += tokens.calls;
    for (const auto& [exit, n] : t.rollout_exits) r->rollout_exits[exit] += n;
    r->autosubmitted += t.autosubmitted;
    r->rollouts += t.rollouts;
    r->env_broken += t.env_broken;
    AddAccounting(t.accounting, &r->tokens);
    if (t.first_seconds > 0) *first = *first == 0 ? t.first_seconds : std::min(*first, t.first_seconds);
    *last = std::max(*last, t.last_seconds);
  }
}

void AddRates(double first, double last, StatusReport* r) {
  TaskTally tally;
  tally.planned = r->planned;
  tally.done = r->finished;
  // Neither is the model's: a resumed run retries both.
  tally.infra_failed = Sum(r->infra_failures) + Sum(r->config_failures);
  r->result = std::string(RunResultName(ClassifyTally(tally)));
  std::size_t verified = 0;
  for (const auto& [k, n] : r->verified) verified += n;
  auto acc = r->verified.find(journal::Verdict::kAccepted);
  r->acceptance_rate =
      verified && acc != r->verified.end() ? static_cast<double>(acc->second) / static_cast<double>(verified) : 0;
  if (last > first && r->finished > 0) {
    r->tasks_per_minute = 60.0 * static_cast<double>(r->finished) / (last - first);
    if (r->tasks_per_minute > 0)
      r->eta_minutes = static_cast<double>(r->planned - std::min(r->planned, r->finished)) / r->tasks_per_minute;
  }
}

// Prices, budget and category names come from the run's saved config
// (none when it is missing or does not load: status still reports
// everything else). Cost and budget use are the ledger's and the budgets'
// own calculations (cost_ledger.h, run_budget.h).
void AddBreakdown(const RunState& run, StatusReport* r) {
  if (const auto& saved = run.settings.saved) {
    r->budget = {saved->budget.max_tasks, saved->budget.max_tokens, saved->budget.max_cost_usd};
  }
  r->breakdown = ComputeBreakdown(run, r->prompt_tokens + r->completion_tokens);
  r->cost = CostRun(run, r->breakdown.accepted);
  r->budget_used = RunUse(run.shards, r->cost.prices);
}

}  // namespace

std::map<std::string, std::size_t> CountsByName(const std::map<journal::Verdict, std::size_t>& counts) {
  return Named(counts, journal::VerdictName);
}

std::map<std::string, std::size_t> CountsByName(const std::map<journal::SkipReason, std::size_t>& counts) {
  return Named(counts, journal::SkipReasonName);
}

std::map<std::string, std::size_t> CountsByName(const std::map<journal::ErrorClass, std::size_t>& counts) {
  return Named(counts, journal::ErrorClassName);
}

Result<StatusReport> ReadStatus(const std::string& run_dir) {
  SG_ASSIGN_OR_RETURN(RunState run, FoldRun(run_dir));
  StatusReport report = StatusOf(run);
  for (const ShardState& shard : run.shards) {
    report.running = report.running || journal::ShardLockHeld(journal::LockPath(shard.shard_dir));
  }
  if (!report.running) report.eta_minutes = -1;  // a stopped run has no time of arrival
  report.occupancy = ReadRunOccupancy(run_dir, &report.occupancy_problems);
  return report;
}

StatusReport StatusOf(const RunState& run) {
  StatusReport r;
  r.planned = run.plan.size();
  r.split = callgraph::SplitOf(run.plan);
  r.shards = run.shards.size();
  double first = 0, last = 0;
  AddShardTotals(run, &r, &first, &last);
  run.ForEachTask([&r](const ShardState&, const journal::TaskProgress& p) { CountTask(p, &r); });
  AddRates(first, last, &r);
  AddBreakdown(run, &r);
  return r;
}

std::string FormatStatus(const StatusReport& r) {
  std::string out = fmt::format("tasks      {} planned, {} started, {} finished ({:.1f}%), {} shard(s)\n", r.planned,
                                r.started, r.finished, r.planned ? 100.0 * r.finished / r.planned : 0.0, r.shards);
  if (r.split.heldout_tasks > 0) out += fmt::format("eval split {}\n", callgraph::FormatSplit(r.split));
  out += fmt::format("result     {}\n", r.result);
  auto line = [&](const char* name, const std::map<std::string, std::size_t>& m) {
    if (m.empty()) return;
    out += fmt::format("{:<11}", name);
    bool firstk = true;
    for (const auto& [k, n] : m) {
      out += fmt::format("{}{} {}", firstk ? "" : ", ", n, k);
      firstk = false;
    }
    out += "\n";
  };
  line("stages", r.by_stage);
  line("verified", CountsByName(r.verified));
  out += fmt::format("acceptance {:.1f}% of verified tasks\n", 100.0 * r.acceptance_rate);
  line("skipped", CountsByName(r.skipped));
  line("rollouts", r.rollout_exits);
  if (r.autosubmitted > 0)
    out += fmt::format("autosubmit {} rollout(s) submitted their diff after a limit\n", r.autosubmitted);
  if (r.rollouts > 0) {
    out +=
        fmt::format("env health {} of {} rollout(s) ran the repository's code; {} failed to import it (env_broken)\n",
                    r.rollouts - r.env_broken, r.rollouts, r.env_broken);
  }
  out += FormatTestAgreement(r.test_agreement);
  out += fmt::format("failures   {} infrastructure, {} model", Sum(r.infra_failures), Sum(r.model_failures));
  if (!r.config_failures.empty()) out += fmt::format(", {} configuration", Sum(r.config_failures));
  out += "\n";
  line("  infra", CountsByName(r.infra_failures));
  line("  model", CountsByName(r.model_failures));
  line("  config", CountsByName(r.config_failures));
  out += fmt::format("tokens     {} in ({} cached), {} out, {} model calls\n", r.prompt_tokens, r.cached_tokens,
                     r.completion_tokens, r.model_calls);
  out += FormatTokenAccounting(r.tokens);
  if (r.tasks_per_minute > 0) {
    out += fmt::format("throughput {:.1f} tasks/min", r.tasks_per_minute);
    if (r.eta_minutes >= 0 && r.finished < r.planned) out += ", " + FormatEta(r.eta_minutes);
    out += "\n";
  }
  out += FormatBreakdown(r.breakdown);
  out += FormatCost(r.cost);
  if (r.budget.any()) out += "budget     " + FormatBudgetUse(r.budget_used, r.budget) + " used (run-wide)\n";
  for (const auto& [format, secrets] : r.export_secrets) {
    out += fmt::format("export     {} ", format) + FormatSecretSummary(secrets);
  }
  out += FormatOccupancy(r.occupancy);
  for (const auto& problem : r.occupancy_problems) out += "note       unreadable occupancy: " + problem + "\n";
  if (r.torn_tails)
    out += fmt::format("note       {} journal(s) end in a torn line (a crash); it is ignored\n", r.torn_tails);
  return out;
}

namespace {

// "prompt_cache", "wasted_tokens" and "rollout_resume" of the status JSON.
void AddTokenAccountingJson(const TokenAccounting& acc, nlohmann::ordered_json& j) {
  nlohmann::ordered_json cache = nlohmann::ordered_json::object();
  for (const auto& [stage, c] : acc.cache_by_stage) {
    cache[stage] = {{"prompt_tokens", c.prompt_tokens}, {"cached_tokens", c.cached_tokens}, {"hit_rate", c.HitRate()}};
  }
  j["prompt_cache"] = cache;
  nlohmann::ordered_json wasted = nlohmann::ordered_json::object();
  for (const auto& [why, n] : acc.wasted) wasted[why] = n;
  j["wasted_tokens"] = {{"total", acc.wasted_total}, {"by_reason", wasted}};
  j["rollout_resume"] = {{"rollout_replays", acc.rollout_replays},
                         {"replayed_calls", acc.replayed_calls},
                         {"rollout_restarts", acc.rollout_restarts}};
}

void AddBreakdownJson(const StatusBreakdown& b, nlohmann::ordered_json& j) {
  auto acceptance = [](const std::map<std::string, Acceptance>& m) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [k, a] : m) out[k] = {{"verified", a.verified}, {"accepted", a.accepted}};
    return out;
  };
  j["acceptance_by_category"] = acceptance(b.by_category);
  j["acceptance_by_repo"] = acceptance(b.by_repo);
  j["accepted"] = b.accepted;
  j["tokens_per_accepted"] = b.tokens_per_accepted;
  nlohmann::ordered_json shards = nlohmann::ordered_json::array();
  for (const ShardProgress& s : b.shards) {
    shards.push_back({{"shard", s.index},
                      {"shards", s.count},
                      {"planned", s.planned},
                      {"done", s.done},
                      {"has_journal", s.has_journal},
                      {"complete", s.complete()}});
  }
  j["shard_progress"] = shards;
}

// {"rollouts":N,"env_broken":K,"env_ok_share":(N-K)/N or null}
nlohmann::ordered_json EnvHealthJson(const StatusReport& r) {
  nlohmann::ordered_json j = {{"rollouts", r.rollouts}, {"env_broken", r.env_broken}};
  if (r.rollouts > 0) {
    j["env_ok_share"] = static_cast<double>(r.rollouts - r.env_broken) / static_cast<double>(r.rollouts);
  } else {
    j["env_ok_share"] = nullptr;
  }
  return j;
}

}  // namespace

std::string StatusJson(const StatusReport& r) {
  nlohmann::ordered_json j = {{"planned", r.planned},
                              {"started", r.started},
                              {"finished", r.finished},
                              {"result", r.result},
                              {"shards", r.shards},
                              {"by_stage", r.by_stage},
                              {"verified", CountsByName(r.verified)},
                              {"acceptance_rate", r.acceptance_rate},
                              {"skipped", CountsByName(r.skipped)},
                              {"rollout_exits", r.rollout_exits},
                              {"autosubmitted", r.autosubmitted},
                              {"env_health", EnvHealthJson(r)},
                              {"infra_failures", CountsByName(r.infra_failures)},
                              {"model_failures", CountsByName(r.model_failures)},
                              {"config_failures", CountsByName(r.config_failures)},
                              {"prompt_tokens", r.prompt_tokens},
                              {"completion_tokens", r.completion_tokens},
                              {"cached_prompt_tokens", r.cached_tokens},
                              {"model_calls", r.model_calls},
                              {"tasks_per_minute", r.tasks_per_minute},
                              {"eta_minutes", r.eta_minutes},
                              {"running", r.running},
                              {"torn_journals", r.torn_tails}};
  j["test_agreement"] = TestAgreementJson(r.test_agreement);
  AddBreakdownJson(r.breakdown, j);
  j["cost"] = nlohmann::ordered_json::parse(CostJson(r.cost));
  AddTokenAccountingJson(r.tokens, j);
  for (const auto& [format, secrets] : r.export_secrets) {  // no key before an export with a scan
    j["export_secrets"][format] = nlohmann::ordered_json::parse(secrets::EncodeSecretSummary(secrets));
  }
  j["teacher_occupancy"] = nlohmann::ordered_json::parse(OccupancyJson(r.occupancy));
  if (r.split.heldout_tasks > 0) {
    j["eval_split"] = {{"functions", r.split.functions}, {"heldout_functions", r.split.heldout_functions},
                       {"files", r.split.files},         {"heldout_files", r.split.heldout_files},
                       {"tasks", r.split.tasks},         {"heldout_tasks", r.split.heldout_tasks}};
  }
  j["budget"] = {{"max_tasks", r.budget.max_tasks},       {"max_tokens", r.budget.max_tokens},
                 {"max_cost_usd", r.budget.max_cost_usd}, {"tasks_used", r.budget_used.tasks},
                 {"tokens_used", r.budget_used.tokens},   {"cost_usd_used", r.budget_used.cost_usd}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace seragen::runview
