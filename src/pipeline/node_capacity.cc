#include "seragen/pipeline/node_capacity.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace seragen::pipeline {
namespace {

constexpr double kHeadroom = 0.8;  // share of free memory and disk the tasks may take

// The number that starts `text` (after blanks), when there is one.
std::optional<double> LeadingNumber(std::string_view text) {
  std::size_t i = text.find_first_not_of(" \t");
  if (i == std::string_view::npos) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
  if (ec != std::errc() || !(v >= 0) || v > 1e18) return std::nullopt;
  (void)end;
  return v;
}

std::string Gib(std::int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  return buf;
}

void Consider(NodeBound& best, std::int64_t tasks, const char* by, const std::string& detail) {
  const int n = static_cast<int>(std::clamp<std::int64_t>(tasks, 1, 1 << 30));
  if (n < best.tasks) best = {n, by, detail};
}

}  // namespace

NodeBound TasksTheNodeHolds(const NodeResources& node, const TaskNeeds& needs, int hard_max) {
  NodeBound bound{std::max(1, hard_max), "limit", "at most " + std::to_string(std::max(1, hard_max)) + " tasks"};
  if (node.available_memory_bytes >= 0 && needs.memory_bytes > 0) {
    Consider(
        bound,
        static_cast<std::int64_t>(kHeadroom * static_cast<double>(node.available_memory_bytes)) / needs.memory_bytes,
        "memory", Gib(node.available_memory_bytes) + " available, " + Gib(needs.memory_bytes) + " per task");
  }
  if (node.free_disk_bytes >= 0 && needs.disk_bytes > 0) {
    Consider(bound, static_cast<std::int64_t>(kHeadroom * static_cast<double>(node.free_disk_bytes)) / needs.disk_bytes,
             "disk", Gib(node.free_disk_bytes) + " free, " + Gib(needs.disk_bytes) + " per copy");
  }
  const std::int64_t cores = std::max(1, node.cores);
  Consider(bound, cores * std::max(1, needs.tasks_per_core), "cpu",
           std::to_string(cores) + " cores, " + std::to_string(std::max(1, needs.tasks_per_core)) + " tasks per core");
  return bound;
}

std::optional<std::int64_t> ParseMemAvailable(std::string_view meminfo) {
  constexpr std::string_view kKey = "MemAvailable:";
  std::size_t at = meminfo.find(kKey);
  if (at == std::string_view::npos || (at > 0 && meminfo[at - 1] != '\n')) return std::nullopt;
  std::string_view rest = meminfo.substr(at + kKey.size());
  rest = rest.substr(0, rest.find('\n'));
  std::optional<double> kib = LeadingNumber(rest);
  if (!kib || rest.find("kB") == std::string_view::npos) return std::nullopt;
  return static_cast<std::int64_t>(*kib) * 1024;
}

std::optional<double> ParseCpuPressure(std::string_view pressure) {
  if (pressure.rfind("some ", 0) != 0) return std::nullopt;
  std::string_view line = pressure.substr(0, pressure.find('\n'));
  constexpr std::string_view kKey = " avg10=";
  std::size_t at = line.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  std::optional<double> percent = LeadingNumber(line.substr(at + kKey.size()));
  if (!percent) return std::nullopt;
  return std::clamp(*percent / 100.0, 0.0, 1.0);
}

std::optional<double> CpuPressureFromLoadavg(std::string_view loadavg, int cores) {
  std::optional<double> load = LeadingNumber(loadavg);
  if (!load) return std::nullopt;
  if (*load <= 0) return 0.0;
  return std::clamp((*load - std::max(1, cores)) / *load, 0.0, 1.0);
}

}  // namespace seragen::pipeline
