#include "cli/auto_concurrency_setup.h"

#include <sched.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "seragen/base/file_util.h"
#include "seragen/llm/observed_load.h"

namespace seragen::cli {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

// Bytes of the files tracked at `commit` (every file, whatever its size).
std::int64_t CheckoutBytes(const repo::Repository& repo, const std::string& commit) {
  repo::FileFilter all;
  all.max_file_bytes = 0;
  all.skip_binary = false;
  auto files = repo.ListFiles(commit, all);
  if (!files.ok()) return 0;
  std::int64_t total = 0;
  for (const auto& f : *files) total += static_cast<std::int64_t>(f.size);
  return total;
}

int UsableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

pipeline::TaskNeeds TaskNeedsFor(const config::Config& cfg, const pipeline::PreparedRun& run) {
  pipeline::TaskNeeds needs;
  needs.memory_bytes = cfg.run.task_memory_mb * kMiB;
  if (cfg.run.task_disk_mb > 0) {
    needs.disk_bytes = cfg.run.task_disk_mb * kMiB;
    return needs;
  }
  std::map<std::string, std::string> commits;  // repo -> a planned commit
  for (const callgraph::PlannedTask& t : run.plan) commits.emplace(t.repo, t.commit);
  std::int64_t largest = 0;
  for (const auto& [name, commit] : commits) {
    auto it = run.repos.find(name);
    if (it != run.repos.end() && it->second) largest = std::max(largest, CheckoutBytes(*it->second, commit));
  }
  needs.disk_bytes = std::max<std::int64_t>(2 * largest, 64 * kMiB);
  return needs;
}

pipeline::NodeResources ReadNodeResources(const std::string& copies_dir) {
  pipeline::NodeResources node;
  node.cores = UsableCores();
  if (auto meminfo = ReadFile("/proc/meminfo"); meminfo.ok()) {
    node.available_memory_bytes = pipeline::ParseMemAvailable(*meminfo).value_or(-1);
  }
  std::filesystem::path dir = copies_dir;
  std::error_code ec;
  while (!dir.empty() && !std::filesystem::exists(dir, ec) && dir != dir.parent_path()) dir = dir.parent_path();
  struct statvfs fs {};
  if (!dir.empty() && ::statvfs(dir.c_str(), &fs) == 0) {
    node.free_disk_bytes = static_cast<std::int64_t>(fs.f_bavail) * static_cast<std::int64_t>(fs.f_frsize);
  }
  return node;
}

double ReadCpuPressure(int cores) {
  if (auto psi = ReadFile("/proc/pressure/cpu"); psi.ok()) {
    if (auto p = pipeline::ParseCpuPressure(*psi)) return *p;
  }
  if (auto load = ReadFile("/proc/loadavg"); load.ok()) {
    if (auto p = pipeline::CpuPressureFromLoadavg(*load, cores)) return *p;
  }
  return 0;
}

pipeline::AutoConcurrencyOptions AutoConcurrencyOptionsFor(const pipeline::NodeBound& bound, int endpoint_caps,
                                                           int endpoints) {
  constexpr int kStartPerEndpoint = 8;
  pipeline::AutoConcurrencyOptions o;
  o.tuner.max_limit = bound.tasks;
  o.endpoint_slots = std::clamp(std::min(endpoint_caps, kStartPerEndpoint * std::max(1, endpoints)), 1, bound.tasks);
  o.bound_by = bound.bound_by;
  o.bound_detail = bound.detail;
  return o;
}

std::vector<llm::EndpointLoad> MergeLoads(const std::vector<std::optional<llm::ServerLoad>>& published,
                                          const std::vector<llm::EndpointLoad>& observed, std::string* source) {
  std::vector<llm::EndpointLoad> out = observed;
  bool any_published = false;
  bool any_observed = false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool has = i < published.size() && published[i].has_value();
    if (has) out[i] = {published[i]->running, published[i]->waiting, published[i]->kv_cache_usage};
    (has ? any_published : any_observed) = true;
  }
  *source = any_published && any_observed ? "server metrics and observed latency"
            : any_published               ? "server metrics"
                                          : "observed latency";
  return out;
}

std::function<pipeline::LoadSample()> LoadSamplerFor(const llm::HttpChatClient& chat, llm::ServerLoadPoller& poller,
                                                     int cores) {
  auto observed = std::make_shared<llm::ObservedLoad>();
  return [&chat, &poller, observed, cores] {
    pipeline::LoadSample s;
    // Published loads at most 10 s old (a server that stopped answering falls back).
    s.endpoints =
        MergeLoads(poller.Latest(std::chrono::seconds(10)), observed->Update(chat.EndpointSnapshot()), &s.source);
    poller.Poll();
    s.cpu_pressure = ReadCpuPressure(cores);
    return s;
  };
}

journal::ConcurrencyRecord ConcurrencyRecordOf(const pipeline::AutoConcurrencyStatus& s) {
  return {"auto", s.limit, s.max_limit, s.lowest, s.highest, s.bound_by, s.bound_detail, s.load_source, s.at_bound_s};
}

journal::ConcurrencyRecord FixedConcurrencyRecord(int concurrency) {
  return {"fixed", concurrency, concurrency, concurrency, concurrency, "", "", "", 0};
}

}  // namespace seragen::cli
