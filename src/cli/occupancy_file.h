// The endpoints' occupancy of a running `seragen run`, saved for `seragen
// status` (RUN_DIR/shard-K/occupancy.json, journal/occupancy.h).
#pragma once

#include <string>
#include <vector>

#include "seragen/journal/occupancy.h"
#include "seragen/llm/endpoint_pool.h"
#include "seragen/llm/http_chat_client.h"

namespace seragen::cli {

// The pool's figures as the saved record; endpoint URLs lose any user:password@
// and query, so no credential reaches the file.
journal::OccupancyRecord OccupancyOf(const std::vector<llm::EndpointState>& endpoints, const llm::CallHolds& holds);

// Writes OccupancyOf(chat) and the run's concurrency to the shard's
// occupancy.json (atomically); a failure is a warning, never a run failure.
void SaveOccupancy(const llm::HttpChatClient& chat, const journal::ConcurrencyRecord& concurrency,
                   const std::string& shard_dir);

}  // namespace seragen::cli
