// A made-up run directory for report tests and bench_report: a plan of N
// tasks, shard journals (encoded with the journal's own encoder, written in
// one go rather than appended durably) and small trajectory and issue files.
// Outcomes cycle through accepted, rejected, skipped, failed, running and
// not started, so every part of the report has something to show.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "seragen/base/status.h"

namespace seragen::report::testing {

struct SyntheticRunOptions {
  std::size_t tasks = 20;
  int shards = 1;
  bool trajectories = true;  // write trajectory and issue files
  // Put into observations, reasoning, patches and the issue of every task:
  // markup that would run script or log to the console if it were not escaped.
  std::string hostile_text =
      "<script>console.error('injected')</script><img src=x onerror=\"console.error('injected')\">\x1b[31m\"&'";
  int repos = 3;
  std::string model = "synthetic";  // the model id every trajectory records
  // Non-empty: every record's tokens (1,200 prompt of which 100 cached, 300
  // completion, 2 calls) name the endpoints that answered them: 1,000 prompt
  // (the 100 cached), 200 completion and one call the first endpoint's, the
  // rest the second's.
  std::vector<std::string> endpoints;
};

// The outcome task i gets: accepted, rejected, skipped, failed, running or
// planned (cycle of 10: 4 accepted, 2 rejected, 1 skipped, 1 failed, 1
// running, 1 planned).
std::string SyntheticOutcome(std::size_t i);

Status MakeSyntheticRun(const std::string& run_dir, const SyntheticRunOptions& options);

}  // namespace seragen::report::testing
