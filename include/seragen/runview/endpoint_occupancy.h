// The teacher endpoints' occupancy in `seragen status`: every shard's
// occupancy.json (journal/occupancy.h) merged, and its text and JSON forms.
#pragma once

#include <string>
#include <vector>

#include "seragen/journal/occupancy.h"

namespace seragen::runview {

// Shards without the file (never run, or by an older seragen) add nothing; a
// file that cannot be read or decoded is named in `problems`.
journal::OccupancyRecord ReadRunOccupancy(const std::string& run_dir, std::vector<std::string>* problems);

// Per endpoint: mean requests in flight over its capacity, peak, idle share
// and its causes, prefix-cache hit rate, share of calls that went where the
// task's previous call went; then what held calls back. "" when empty.
std::string FormatOccupancy(const journal::OccupancyRecord& record);

// The same figures as a JSON object {"endpoints": [...], "held_back": {...}}.
std::string OccupancyJson(const journal::OccupancyRecord& record);

}  // namespace seragen::runview
