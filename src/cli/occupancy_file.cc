#include "cli/occupancy_file.h"

#include "seragen/base/endpoint_name.h"
#include "seragen/base/file_util.h"
#include "seragen/base/log.h"
#include "seragen/journal/run_paths.h"

namespace seragen::cli {

journal::OccupancyRecord OccupancyOf(const std::vector<llm::EndpointState>& endpoints, const llm::CallHolds& holds) {
  journal::OccupancyRecord r;
  for (const auto& e : endpoints) {
    const llm::EndpointOccupancy& o = e.occupancy;
    journal::EndpointOccupancyRecord x;
    x.endpoint = EndpointName(e.base_url);
    x.capacity = e.max_concurrency;
    x.in_flight = e.outstanding;
    x.peak_in_flight = o.peak_in_flight;
    x.tracked_s = o.tracked_s;
    x.in_flight_s = o.in_flight_s;
    x.idle_s[std::string(journal::kIdleStartup)] = o.idle_startup_s;
    x.idle_s[std::string(journal::kIdleNoRequest)] = o.idle_no_request_s;
    x.idle_s[std::string(journal::kIdleCap)] = o.idle_cap_s;
    x.idle_s[std::string(journal::kIdleUnavailable)] = o.idle_unavailable_s;
    x.prompt_tokens = o.prompt_tokens;
    x.cached_tokens = o.cached_tokens;
    x.affinity_kept = e.affinity_kept;
    x.affinity_moved_in = e.affinity_moved_in;
    x.affinity_started = e.affinity_started;
    r.endpoints.push_back(std::move(x));
  }
  auto seconds = [](std::chrono::milliseconds ms) { return std::chrono::duration<double>(ms).count(); };
  const std::string global(llm::AcquireHoldName(llm::AcquireHold::kGlobalCap));
  const std::string per_endpoint(llm::AcquireHoldName(llm::AcquireHold::kEndpointCaps));
  const std::string unavailable(llm::AcquireHoldName(llm::AcquireHold::kNoneAvailable));
  r.held_s = {{global, seconds(holds.global_cap)},
              {per_endpoint, seconds(holds.endpoint_caps)},
              {unavailable, seconds(holds.unavailable)}};
  r.holds = {{global, holds.global_cap_holds},
             {per_endpoint, holds.endpoint_cap_holds},
             {unavailable, holds.unavailable_holds}};
  return r;
}

void SaveOccupancy(const llm::HttpChatClient& chat, const journal::ConcurrencyRecord& concurrency,
                   const std::string& shard_dir) {
  const std::string path = journal::OccupancyPath(shard_dir);
  journal::OccupancyRecord record = OccupancyOf(chat.EndpointSnapshot(), chat.Holds());
  record.concurrency = {concurrency};
  Status written = WriteFileAtomic(path, journal::EncodeOccupancy(record));
  if (!written.ok()) log::Logger("run").Warn("could not write {} ({})", path, written.message());
}

}  // namespace seragen::cli
