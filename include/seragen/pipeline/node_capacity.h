// NodeCapacity: how many tasks this node can hold at once (the ceiling of
// `run.concurrency: auto`), from its free memory, free disk and cores and
// what one task needs, with headroom; and the parsers of the kernel files
// the figures come from (the reads themselves are the caller's). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace seragen::pipeline {

struct NodeResources {
  std::int64_t available_memory_bytes = -1;  // MemAvailable; -1: unknown (not a bound)
  std::int64_t free_disk_bytes = -1;         // where the working copies live; -1: unknown
  int cores = 1;
};

struct TaskNeeds {
  std::int64_t memory_bytes = 1LL << 30;  // a task's commands and its copy's page cache
  std::int64_t disk_bytes = 1LL << 30;    // a task's working copy
  // A task runs commands only part of the time (the rest it waits for the
  // model); the node's CPU pressure (ConcurrencyTuner) decides below this.
  int tasks_per_core = 16;
};

struct NodeBound {
  int tasks = 1;         // at least 1
  std::string bound_by;  // "memory", "disk", "cpu" or "limit"
  std::string detail;    // the figures, for the log and status
};

// The smallest of: 80% of the available memory over the memory per task,
// 80% of the free disk over the disk per task, cores x tasks_per_core, and
// `hard_max`. Never below 1.
NodeBound TasksTheNodeHolds(const NodeResources& node, const TaskNeeds& needs, int hard_max = 4096);

// MemAvailable of /proc/meminfo, in bytes; nullopt when absent or malformed.
std::optional<std::int64_t> ParseMemAvailable(std::string_view meminfo);
// The share of time (0..1) some runnable task waited for a CPU over the last
// 10 s: `some avg10` of /proc/pressure/cpu; nullopt when absent or malformed.
std::optional<double> ParseCpuPressure(std::string_view pressure);
// The same estimated from /proc/loadavg's 1-minute load on `cores`: the share
// of the runnable tasks beyond the cores. nullopt when malformed.
std::optional<double> CpuPressureFromLoadavg(std::string_view loadavg, int cores);

}  // namespace seragen::pipeline
