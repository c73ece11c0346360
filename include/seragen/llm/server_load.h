// ServerLoad: the load an inference server publishes about itself at
// /metrics (Prometheus text), for `run.concurrency: auto`:
//   vLLM       vllm:num_requests_running, vllm:num_requests_waiting,
//              vllm:kv_cache_usage_perc (older: vllm:gpu_cache_usage_perc)
//   SGLang     sglang:num_running_reqs, sglang:num_queue_reqs, sglang:token_usage
//   llama.cpp  llamacpp:requests_processing, llamacpp:requests_deferred,
//              llamacpp:kv_cache_usage_ratio (started with --metrics)
// Series of one gauge (several models or engines behind one port) are
// summed; the KV-cache use is their largest.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "seragen/base/result.h"

namespace seragen::llm {

struct ServerLoad {
  std::string server;          // "vllm", "sglang" or "llama.cpp"
  double running = 0;          // requests decoding now
  double waiting = 0;          // requests the server has queued
  double kv_cache_usage = -1;  // 0..1; -1 when not published
};

// nullopt when the body names neither running nor waiting requests of a
// known server (another server, or metrics turned off); an error for a body
// the parser refuses (prometheus_text.h). Negative or non-finite gauges are
// read as 0 (usage: unknown).
Result<std::optional<ServerLoad>> ServerLoadFromMetrics(std::string_view body);

}  // namespace seragen::llm
