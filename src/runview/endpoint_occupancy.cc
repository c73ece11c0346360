#include "seragen/runview/endpoint_occupancy.h"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "seragen/base/file_util.h"
#include "seragen/journal/run_journals.h"
#include "seragen/journal/run_paths.h"

namespace seragen::runview {

journal::OccupancyRecord ReadRunOccupancy(const std::string& run_dir, std::vector<std::string>* problems) {
  journal::OccupancyRecord merged;
  auto shards = journal::ListShardDirs(run_dir);
  if (!shards.ok()) return merged;
  for (const auto& shard : *shards) {
    const std::string path = journal::OccupancyPath(shard.dir);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    auto text = ReadFile(path);
    auto record = text.ok() ? journal::DecodeOccupancy(*text) : Result<journal::OccupancyRecord>(text.status());
    if (!record.ok()) {
      if (problems) problems->push_back(path + ": " + record.status().message());
      continue;
    }
    journal::MergeOccupancy(*record, merged);
  }
  return merged;
}

namespace {

double Share(double part, double whole) { return whole > 0 ? part / whole : 0; }

double SameEndpointShare(const journal::EndpointOccupancyRecord& e) {
  return Share(static_cast<double>(e.affinity_kept), static_cast<double>(e.affinity_kept + e.affinity_moved_in));
}

std::string FormatConcurrency(const journal::ConcurrencyRecord& c) {
  if (c.mode != "auto") return fmt::format("tasks      run.concurrency {}: {} at once\n", c.limit, c.limit);
  std::string out = fmt::format(
      "tasks      run.concurrency auto: {} at once now ({} to {} so far), at most {} on this node ({}: {}); load from "
      "{}\n",
      c.limit, c.lowest, c.highest, c.max_limit, c.bound_by, c.bound_detail,
      c.load_source.empty() ? "no sample yet" : c.load_source);
  if (c.at_bound_s > 0) {
    out += fmt::format(
        "held back  {:.0f} s by the node's bound of {} tasks while the endpoints' queues ran empty: more shards "
        "on other nodes, or a larger node, would keep them busier\n",
        c.at_bound_s, c.max_limit);
  }
  return out;
}

}  // namespace

std::string FormatOccupancy(const journal::OccupancyRecord& r) {
  std::string out;
  for (const auto& e : r.endpoints) {
    std::string capacity = e.capacity > 0
                               ? fmt::format("/{} ({:.0f}%)", e.capacity, 100 * Share(e.MeanInFlight(), e.capacity))
                               : std::string("/unlimited");
    out += fmt::format("endpoint   {}: {:.1f}{} in flight on average, peak {}; idle {:.1f}%", e.endpoint,
                       e.MeanInFlight(), capacity, e.peak_in_flight, 100 * Share(e.IdleSeconds(), e.tracked_s));
    std::string causes;
    for (const auto& [cause, s] : e.idle_s) {
      if (s <= 0) continue;
      causes += fmt::format("{}{} {:.1f}%", causes.empty() ? "" : ", ", cause, 100 * Share(s, e.tracked_s));
    }
    if (!causes.empty()) out += " (" + causes + ")";
    if (e.prompt_tokens > 0) {
      out += fmt::format("; cache hit {:.1f}%",
                         100 * Share(static_cast<double>(e.cached_tokens), static_cast<double>(e.prompt_tokens)));
    }
    if (e.affinity_kept + e.affinity_moved_in > 0) {
      out += fmt::format("; {:.1f}% of calls on the task's previous endpoint", 100 * SameEndpointShare(e));
    }
    out += "\n";
  }
  for (const auto& [cap, s] : r.held_s) {
    std::uint64_t n = r.holds.count(cap) ? r.holds.at(cap) : 0;
    if (s <= 0 && n == 0) continue;
    out += fmt::format("held back  {:.0f} s by {} ({} time(s)): raise it if the endpoints have room\n", s, cap, n);
  }
  for (const auto& c : r.concurrency) out += FormatConcurrency(c);
  return out;
}

std::string OccupancyJson(const journal::OccupancyRecord& r) {
  nlohmann::ordered_json endpoints = nlohmann::ordered_json::array();
  for (const auto& e : r.endpoints) {
    nlohmann::ordered_json idle = nlohmann::ordered_json::object();
    for (const auto& [cause, s] : e.idle_s) idle[cause] = Share(s, e.tracked_s);
    endpoints.push_back(
        {{"endpoint", e.endpoint},
         {"capacity", e.capacity},
         {"mean_in_flight", e.MeanInFlight()},
         {"occupancy", e.capacity > 0 ? nlohmann::ordered_json(Share(e.MeanInFlight(), e.capacity)) : nullptr},
         {"peak_in_flight", e.peak_in_flight},
         {"tracked_s", e.tracked_s},
         {"idle_share", Share(e.IdleSeconds(), e.tracked_s)},
         {"idle_causes", idle},
         {"cache_hit_rate", Share(static_cast<double>(e.cached_tokens), static_cast<double>(e.prompt_tokens))},
         {"same_endpoint_share", SameEndpointShare(e)}});
  }
  nlohmann::ordered_json held = nlohmann::ordered_json::object();
  for (const auto& [cap, s] : r.held_s)
    held[cap] = {{"seconds", s}, {"times", r.holds.count(cap) ? r.holds.at(cap) : 0}};
  nlohmann::ordered_json j = {{"endpoints", endpoints}, {"held_back", held}};
  // One entry per shard that recorded it (absent for runs before it was recorded).
  for (const auto& c : r.concurrency) {
    j["concurrency"].push_back(nlohmann::ordered_json::parse(journal::EncodeConcurrency(c)));
  }
  return j.dump();
}

}  // namespace seragen::runview
