// Graph cache in a directory of graph files (a run's is RUN_DIR/graph, named by
// journal/run_paths.h): <cache_dir>/<repo>-<key>.json, keyed by
// repository name, commit, extractor fingerprint (version + query hash) and
// the graph options that change output. A corrupt or foreign cache file is a
// miss (rebuilt and overwritten), never an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/callgraph/graph.h"

namespace seragen::callgraph {

// 24 hex characters; changes when any input of the key changes.
std::string GraphCacheKey(std::string_view repo_name, std::string_view commit, const GraphOptions& options);

// <cache_dir>/<repo name with '/' and unsafe characters replaced>-<key>.json
std::string GraphCachePath(std::string_view cache_dir, std::string_view repo_name, std::string_view commit,
                           const GraphOptions& options);

// "<repo name made safe>-": the start of the name of every cache file of
// that repository (readers such as `seragen report` list them without
// knowing the graph options).
std::string GraphCacheFilePrefix(std::string_view repo_name);

// The largest cached graph file read back.
inline constexpr std::uint64_t kMaxGraphCacheBytes = 1ull << 30;

// nullopt when absent, not a regular file (ReadRegularFile) or unreadable as
// a graph.
std::optional<CallGraph> LoadCachedGraph(std::string_view cache_dir, std::string_view repo_name,
                                         std::string_view commit, const GraphOptions& options);

// Durable write (temp + fsync + rename).
Status StoreCachedGraph(std::string_view cache_dir, std::string_view repo_name, std::string_view commit,
                        const GraphOptions& options, const CallGraph& graph);

// Load from cache, or build from `source` and store. An empty `commit` means
// the source is not pinned (a plain directory): always build, never cache.
Result<CallGraph> BuildGraphCached(const FileSource& source, std::string_view cache_dir, std::string_view repo_name,
                                   std::string_view commit, const GraphOptions& options, bool* from_cache = nullptr);

}  // namespace seragen::callgraph
