// The lines a running shard prints on the terminal: the progress line (live
// on stderr, or in the log every 30 s) and the final line (stdout).
#pragma once

#include <string>

#include "seragen/pipeline/shard_run.h"

namespace seragen::cli {

// One line of progress: done (final and not an infrastructure failure)
// /planned, running, accepted (both counting the tasks finished before this
// invocation), this invocation's outcomes,
// tokens and rate (rate and ETA only when elapsed_s > 1).
std::string ProgressLine(const pipeline::RunSummary& summary, double elapsed_s);

// How a shard ended: its totals over every invocation (tasks done — final
// and not an infrastructure failure — and accepted), then this invocation's
// part apart: finished tasks by outcome, accepted, tokens, rate.
std::string FinalLine(const pipeline::RunSummary& summary, double elapsed_s);

}  // namespace seragen::cli
