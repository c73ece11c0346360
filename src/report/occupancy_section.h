// The index page's section on the teacher endpoints' occupancy (internal to
// the report module): per endpoint, requests in flight against its capacity,
// the share of time it idled and why, its prefix-cache hit rate and the
// share of calls on the task's previous endpoint; then what held calls
// back and each shard's run.concurrency. The figures are the ones `seragen
// status` shows (runview/endpoint_occupancy.h). "" for a run without them.
#pragma once

#include <string>

#include "seragen/journal/occupancy.h"

namespace seragen::report {

std::string OccupancySection(const journal::OccupancyRecord& occupancy);

}  // namespace seragen::report
