// `run.concurrency: auto` for `seragen run`: the node's bound (its available
// memory, the free disk where the working copies live, its cores, and what
// one task needs), the tuner's options, and the load sampler the tuner reads
// (the client's observation of every endpoint, llm/observed_load.h, and the
// node's CPU pressure from /proc).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "seragen/config/config.h"
#include "seragen/journal/occupancy.h"
#include "seragen/llm/http_chat_client.h"
#include "seragen/llm/server_load_poller.h"
#include "seragen/pipeline/auto_concurrency.h"
#include "seragen/pipeline/node_capacity.h"
#include "seragen/pipeline/run_setup.h"

namespace seragen::cli {

// What one task needs: run.task_memory_mb, and run.task_disk_mb or (0) twice
// the largest repository's checkout at its planned commit.
pipeline::TaskNeeds TaskNeedsFor(const config::Config& cfg, const pipeline::PreparedRun& run);
// The node's figures now: MemAvailable, the free space of `copies_dir` (or
// its nearest existing parent), the CPUs this process may use.
pipeline::NodeResources ReadNodeResources(const std::string& copies_dir);
// The share of time runnable tasks waited for a CPU (PSI, else the load average).
double ReadCpuPressure(int cores);

// The tuner's options for a node bound; it starts at 8 tasks per endpoint,
// or the endpoints' request caps (summed) or the bound when lower, and rises
// from there (a start too high would load a small node before the first
// sample says so).
pipeline::AutoConcurrencyOptions AutoConcurrencyOptionsFor(const pipeline::NodeBound& bound, int endpoint_caps,
                                                           int endpoints);
// Samples every endpoint's load: what the server publishes (`poller`, asked
// again at each sample) where it does, else what the client observes of
// `chat`'s calls; and the node's CPU pressure. `chat` and `poller` must
// outlive the sampler.
std::function<pipeline::LoadSample()> LoadSamplerFor(const llm::HttpChatClient& chat, llm::ServerLoadPoller& poller,
                                                     int cores);
// The endpoints' loads: published where there is one, else observed; and
// which of the two ("server metrics", "observed latency", or both joined by
// " and ").
std::vector<llm::EndpointLoad> MergeLoads(const std::vector<std::optional<llm::ServerLoad>>& published,
                                          const std::vector<llm::EndpointLoad>& observed, std::string* source);

// For occupancy.json.
journal::ConcurrencyRecord ConcurrencyRecordOf(const pipeline::AutoConcurrencyStatus& status);
journal::ConcurrencyRecord FixedConcurrencyRecord(int concurrency);

}  // namespace seragen::cli
