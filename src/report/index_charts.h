// The index page's overview and chart sections (internal to the report module).
#pragma once

#include <string>

#include "seragen/report/run_view.h"

namespace seragen::report {

// Headline counts, the funnel with drop reasons, tokens, cost, wall time,
// throughput and the config summary.
std::string OverviewSection(const RunView& view);

// Acceptance by category, repository and directory; steps, tokens and recall
// per rollout; format errors and exit statuses.
std::string ChartsSection(const RunView& view);

}  // namespace seragen::report
