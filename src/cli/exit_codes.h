// Process exit codes of the seragen binary (documented in README, docs/RUN.md
// and --help).
#pragma once

#include "seragen/runview/run_result.h"

namespace seragen::cli {

inline constexpr int kExitOk = 0;              // `run`: every planned task of the shard is done
inline constexpr int kExitRuntimeFailure = 1;  // something failed while doing the work; `run`: nothing succeeded
inline constexpr int kExitUsage = 2;           // bad flags, bad config, bad input files, or the endpoint
                                               // refused a setting (same configuration error N times)
inline constexpr int kExitIncomplete = 3;      // `run` finished, but some tasks ended as infrastructure
                                               // failures or were not started; a rerun retries them
inline constexpr int kExitInterrupted = 75;    // SIGINT/SIGTERM (EX_TEMPFAIL); rerun to resume. A second
                                               // signal ends the process at once with it (process.h)

constexpr int ExitCodeFor(runview::RunResult result) {
  switch (result) {
    case runview::RunResult::kComplete: return kExitOk;
    case runview::RunResult::kIncomplete: return kExitIncomplete;
    case runview::RunResult::kNothingSucceeded: return kExitRuntimeFailure;
    case runview::RunResult::kInterrupted: return kExitInterrupted;
    case runview::RunResult::kConfigStop: return kExitUsage;
    case runview::RunResult::kRuntimeError: return kExitRuntimeFailure;
  }
  return kExitRuntimeFailure;
}

}  // namespace seragen::cli
