// How a shard run ended, as one value the CLI turns into the exit code
// (src/cli/exit_codes.h) and `seragen status --json` reports.
#pragma once

#include <cstddef>
#include <string_view>

namespace seragen::runview {

enum class RunResult {
  kComplete,          // every planned task reached a final state that is not an infrastructure failure
  kIncomplete,        // finished, but some tasks ended as infrastructure failures or were not started
                      // (budget stop); a rerun retries them
  kNothingSucceeded,  // no planned task reached a final non-infrastructure state
  kInterrupted,       // SIGINT/SIGTERM; rerun to resume
  kConfigStop,        // the endpoint refused our configuration (or bad flags/config): fix it, rerun
  kRuntimeError,      // could not run at all (sandbox, disk, quota stop, ...)
};

// complete | incomplete | nothing_succeeded | interrupted | config_error | runtime_error
std::string_view RunResultName(RunResult result);

// Counts over the planned tasks of a shard (or a whole run).
struct TaskTally {
  std::size_t planned = 0;
  std::size_t done = 0;          // final, not an infrastructure failure
  std::size_t infra_failed = 0;  // latest record: a retryable infrastructure failure
};

// kComplete when done == planned (also for an empty plan); kNothingSucceeded
// when nothing is done; else kIncomplete.
RunResult ClassifyTally(const TaskTally& tally);

}  // namespace seragen::runview
