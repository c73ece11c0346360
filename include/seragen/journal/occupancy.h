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

// How many tasks one shard's run kept in flight (run.concurrency).
struct ConcurrencyRecord {
  std::string mode;   // "auto" or "fixed"
  int limit = 0;      // tasks allowed in flight when the file was written
  int max_limit = 0;  // the most ever allowed (auto: the node's bound)
  int lowest = 0;     // auto: the limit's range so far
  int highest = 0;
  std::string bound_by;  // auto: what sets max_limit (memory, disk, cpu, limit), and its figures
  std::string bound_detail;
  std::string load_source;  // auto: where the endpoints' load came from
  double at_bound_s = 0;    // auto: time the node's bound held tasks back while the endpoints' queues ran empty
};

struct OccupancyRecord {
  std::vector<EndpointOccupancyRecord> endpoints;
  // One per shard that recorded it (a shard's file holds at most one).
  std::vector<ConcurrencyRecord> concurrency;
  // What held ready calls back (a cap, or no endpoint available): seconds
  // some call waited, and how often such a hold began.
  std::map<std::string, double> held_s;
  std::map<std::string, std::uint64_t> holds;
};

std::string EncodeOccupancy(const OccupancyRecord& record);
// One ConcurrencyRecord as a JSON object (the form EncodeOccupancy nests),
// for `status --json`.
std::string EncodeConcurrency(const ConcurrencyRecord& record);
// kInvalidArgument naming the problem for anything but EncodeOccupancy's form
// (bounded nesting, numbers of the right kind).
Result<OccupancyRecord> DecodeOccupancy(std::string_view json);

// Adds `from` into `into` (per endpoint by URL: sums; capacity and peaks: the
// larger), for a run's several shards.
void MergeOccupancy(const OccupancyRecord& from, OccupancyRecord& into);

}  // namespace seragen::journal
