// A run's demonstration issues: the demos policy (demos/demo_source.h) over
// the planned repositories' commit messages.
#pragma once

#include <cstddef>

#include "seragen/base/result.h"
#include "seragen/demos/demo_source.h"
#include "seragen/pipeline/run_setup.h"

namespace seragen::pipeline {

// The pool for `run` (its prompts directory, and the commits of its planned
// repositories, at most `max_commits` messages from each and
// repo::kMaxCommitMessagesTotalBytes in all, read only when the source asks).
// Logs which source the pool came from.
Result<demos::DemoIssuePool> LoadRunDemos(const demos::DemoSourceOptions& options, std::size_t max_commits,
                                          const PreparedRun& run);

}  // namespace seragen::pipeline
