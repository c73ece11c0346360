// What a run directory holds, read back: `seragen status`, `seragen export`
// and `seragen merge`. Read-only over journals (no shard lock is taken), so
// they can run while shards are still working.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/callgraph/plan.h"
#include "seragen/config/loader.h"
#include "seragen/export/export_rules.h"
#include "seragen/export/record.h"
#include "seragen/journal/run_journals.h"
#include "seragen/pipeline/run_budget.h"
#include "seragen/pipeline/status_breakdown.h"
#include "seragen/pipeline/token_accounting.h"

namespace seragen::pipeline {

struct StatusReport {
  std::size_t planned = 0;   // tasks.jsonl
  std::size_t started = 0;   // tasks with at least one record
  std::size_t finished = 0;  // terminal (verified, skipped, failed non-retryable)
  // The exit-code classification of `seragen run` over the whole plan
  // (RunResultName): complete, incomplete or nothing_succeeded.
  std::string result;
  std::map<std::string, std::size_t> by_stage;        // latest stage of each started task
  std::map<std::string, std::size_t> verified;        // accepted / rejected / not_scorable
  std::map<std::string, std::size_t> skipped;         // reason -> count
  std::map<std::string, std::size_t> infra_failures;  // error class -> count (latest record)
  std::map<std::string, std::size_t> model_failures;
  // rollout exit status -> count; "autosubmitted:<status>" for rollouts that
  // submitted their diff after that limit (agent::OutcomeName)
  std::map<std::string, std::size_t> rollout_exits;
  std::size_t autosubmitted = 0;  // rollouts (1 and 2) that ended autosubmitted
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;
  std::int64_t model_calls = 0;
  double acceptance_rate = 0;   // accepted / verified
  double tasks_per_minute = 0;  // finished over the span of record timestamps
  double eta_minutes = -1;      // remaining at that rate; -1 unknown
  std::size_t shards = 0;
  std::size_t torn_tails = 0;  // journals that ended in a torn line (a crash)
  StatusBreakdown breakdown;   // per shard, category, repository; cost (status_breakdown.h)
  TokenAccounting tokens;      // cache hit rate per stage, wasted tokens (token_accounting.h)
  // budget.* of the run's saved config.yaml (the latest invocation's) and the
  // run-wide use they are checked against: started tasks, tokens, cost.
  BudgetLimits budget;
  BudgetUse budget_used;
};

// The largest saved configuration LoadSavedConfig reads.
inline constexpr std::uint64_t kMaxSavedConfigBytes = 16ull << 20;
// The run's saved configuration, RUN_DIR/config.yaml, read like every file of
// a run directory (ReadRegularFile); kNotFound when there is none.
Result<config::LoadedConfig> LoadSavedConfig(const std::string& run_dir);

Result<StatusReport> ReadStatus(const std::string& run_dir);
// ReadStatus from a plan and journals already loaded (RUN_DIR is still read
// for its config.yaml: pricing and category names).
StatusReport StatusFromJournals(const std::string& run_dir, const std::vector<callgraph::PlannedTask>& plan,
                                const std::vector<journal::ShardJournal>& shards);
std::string FormatStatus(const StatusReport& report);
std::string StatusJson(const StatusReport& report);

struct ExportRequest {
  std::string run_dir;
  std::string out_dir;  // default RUN_DIR/data
  exporter::ExportOptions options;
  exporter::ExportRules rules;
  std::string run_name;                              // metadata.run of every record
  std::string prompts_dir;                           // for prompts/export templates and category names
  std::map<std::string, std::string> test_commands;  // repository -> its environment.test_command
  // The sera format's tool-list framing file; empty: prompts_dir/export/ default.
  std::string sera_tools_file;
};

// Flags of `seragen export` / `merge`; unset ones take the run's output.* value.
struct ExportOverrides {
  std::string run_dir, out_dir, prompts_dir;
  std::vector<std::string> formats;          // empty: output.formats
  std::optional<std::string> think;          // keep | drop | wrap
  std::optional<std::string> rollouts;       // t1 | t2 | both
  std::optional<std::string> tool_call_ids;  // keep | short9
  bool train_keys = false;
  bool no_tools = false;
  bool include_unsubmitted = false;
  bool require_tests_passed = false;
  std::optional<double> threshold;
};

// One request per format, from RUN_DIR/config.yaml (the resolved config the
// run saved; defaults when a run predates it) with the overrides applied.
// Fails with kInvalidArgument naming the file when it does not load.
Result<std::vector<ExportRequest>> ExportRequestsFor(const ExportOverrides& overrides);

struct ExportReport {
  std::size_t t1_written = 0;
  std::size_t t2_written = 0;
  std::map<std::string, std::size_t> excluded;  // reason -> count
  std::size_t invalid = 0;                      // failed validation (not written)
  std::size_t duplicates = 0;                   // same task id or same patch seen before
  std::string t1_path, t2_path;
  bool scripted_teacher = false;
};

// Writes OUT/t1.<format>.jsonl and OUT/t2.<format>.jsonl (+ OUT/summary.json)
// from every shard of the run. Each task id is exported once, and a patch
// already exported (same P1 for T1 / same P2 for T2) is not repeated, so the
// output of several shards — or of a re-sharded rerun — merges cleanly.
Result<ExportReport> ExportRun(const ExportRequest& request);
std::string FormatExport(const ExportReport& report);

}  // namespace seragen::pipeline
