// The parts of `seragen status` that cluster runs need beyond the totals:
// per-shard completeness (for the merge step), acceptance per category and
// per repository and tokens per accepted trajectory (the cost is the
// ledger's, cost_ledger.h).
// Computed from the folded run (run_state.h) only.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace seragen::runview {

struct ShardProgress {
  int index = 0;             // K
  int count = 1;             // N
  std::size_t planned = 0;   // plan positions of shard K (journal::ShardOf)
  std::size_t done = 0;      // tasks in a final state in shard K's journal (ResumeState finished)
  bool has_journal = false;  // the shard has run at least once
  bool complete() const { return done >= planned; }
};

struct Acceptance {
  std::size_t verified = 0;
  std::size_t accepted = 0;
};

struct StatusBreakdown {
  // Every shard K of N when any journal names N (a shard that never ran
  // shows has_journal false); empty before the first shard starts.
  std::vector<ShardProgress> shards;
  std::map<std::string, Acceptance> by_category;  // category topic (or "category N")
  std::map<std::string, Acceptance> by_repo;
  std::size_t accepted = 0;
  double tokens_per_accepted = 0;  // (prompt + completion) / accepted; 0 when none accepted
};

struct RunState;

// Category names from the run's settings. `spent_tokens` (prompt +
// completion) is summed from the journals by the caller. A task in two
// shards counts once (ForEachTask).
StatusBreakdown ComputeBreakdown(const RunState& run, std::int64_t spent_tokens);

// Minutes left for `remaining` tasks at `tasks_per_minute`; -1 when the rate
// is not known yet (<= 0).
double EtaMinutes(std::size_t remaining, double tasks_per_minute);
// "ETA 45s", "ETA 12 min", "ETA 3h 05m"; "ETA unknown" for a negative value.
std::string FormatEta(double minutes);

// Lines appended to the text status ("incomplete shards ..." is what the
// Slurm merge step looks for); empty parts are left out.
std::string FormatBreakdown(const StatusBreakdown& b);

}  // namespace seragen::runview
