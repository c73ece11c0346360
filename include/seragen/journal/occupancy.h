// The teacher endpoints' occupancy as one `seragen run` of a shard saw it
// (RUN_DIR/shard-K/occupancy.json): rewritten every few seconds while the
// run goes and at its end, read by `seragen status`. Times are seconds since
// that run started; a later run of the shard replaces the file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::journal {

// Idle causes (keys of EndpointOccupancyRecord::idle_s).
inline constexpr std::string_view kIdleStartup = "start-up";
inline constexpr std::string_view kIdleNoRequest = "no request ready (commands, stage transitions)";
inline constexpr std::string_view kIdleCap = "llm.max_concurrency";
inline constexpr std::string_view kIdleUnavailable = "unavailable (ejected, rate limited)";

struct EndpointOccupancyRecord {
  std::string endpoint;  // base URL without credentials or query
  int capacity = 0;      // requests it may hold (its max_concurrency); 0 unlimited
  int in_flight = 0;     // when the file was written
  int peak_in_flight = 0;
  double tracked_s = 0;
  double in_flight_s = 0;                // integral of requests in flight over time
  std::map<std::string, double> idle_s;  // cause -> seconds with no request in flight
  std::int64_t prompt_tokens = 0;        // of answers that reported their cached tokens
  std::int64_t cached_tokens = 0;
  std::uint64_t affinity_kept = 0;      // calls sent where the task's previous call went
  std::uint64_t affinity_moved_in = 0;  // calls moved here from another endpoint
  std::uint64_t affinity_started = 0;   // tasks' first calls

  double MeanInFlight() const { return tracked_s > 0 ? in_flight_s / tracked_s : 0; }
  double IdleSeconds() const;
};

struct OccupancyRecord {
  std::vector<EndpointOccupancyRecord> endpoints;
  // What held ready calls back (a cap, or no endpoint available): seconds
  // some call waited, and how often such a hold began.
  std::map<std::string, double> held_s;
  std::map<std::string, std::uint64_t> holds;
};

std::string EncodeOccupancy(const OccupancyRecord& record);
// kInvalidArgument naming the problem for anything but EncodeOccupancy's form
// (bounded nesting, numbers of the right kind).
Result<OccupancyRecord> DecodeOccupancy(std::string_view json);

// Adds `from` into `into` (per endpoint by URL: sums; capacity and peaks: the
// larger), for a run's several shards.
void MergeOccupancy(const OccupancyRecord& from, OccupancyRecord& into);

}  // namespace seragen::journal
