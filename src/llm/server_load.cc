#include "seragen/llm/server_load.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "seragen/llm/prometheus_text.h"

namespace seragen::llm {
namespace {

enum class Gauge { kRunning, kWaiting, kKvUsage };

struct Known {
  std::string_view name;
  std::string_view server;
  Gauge gauge;
};

constexpr std::array<Known, 10> kKnown{{
    {"vllm:num_requests_running", "vllm", Gauge::kRunning},
    {"vllm:num_requests_waiting", "vllm", Gauge::kWaiting},
    {"vllm:kv_cache_usage_perc", "vllm", Gauge::kKvUsage},
    {"vllm:gpu_cache_usage_perc", "vllm", Gauge::kKvUsage},
    {"sglang:num_running_reqs", "sglang", Gauge::kRunning},
    {"sglang:num_queue_reqs", "sglang", Gauge::kWaiting},
    {"sglang:token_usage", "sglang", Gauge::kKvUsage},
    {"llamacpp:requests_processing", "llama.cpp", Gauge::kRunning},
    {"llamacpp:requests_deferred", "llama.cpp", Gauge::kWaiting},
    {"llamacpp:kv_cache_usage_ratio", "llama.cpp", Gauge::kKvUsage},
}};

const Known* Find(std::string_view name) {
  for (const Known& k : kKnown) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

double Sane(double v) { return std::isfinite(v) && v > 0 ? std::min(v, 1e9) : 0; }

}  // namespace

Result<std::optional<ServerLoad>> ServerLoadFromMetrics(std::string_view body) {
  SG_ASSIGN_OR_RETURN(std::vector<PrometheusSample> samples,
                      ParsePrometheusText(body, [](std::string_view name) { return Find(name) != nullptr; }));
  ServerLoad load;
  bool requests = false;
  for (const PrometheusSample& s : samples) {
    const Known* k = Find(s.name);
    if (load.server.empty()) load.server = std::string(k->server);
    if (k->server != load.server) continue;  // one server per port; the first one named decides
    switch (k->gauge) {
      case Gauge::kRunning:
        load.running += Sane(s.value);
        requests = true;
        break;
      case Gauge::kWaiting:
        load.waiting += Sane(s.value);
        requests = true;
        break;
      case Gauge::kKvUsage:
        if (std::isfinite(s.value) && s.value >= 0) {
          load.kv_cache_usage = std::max(load.kv_cache_usage, std::min(s.value, 1.0));
        }
        break;
    }
  }
  if (!requests) return std::optional<ServerLoad>();
  return std::optional<ServerLoad>(std::move(load));
}

}  // namespace seragen::llm
