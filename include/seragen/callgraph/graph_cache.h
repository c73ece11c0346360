// Graph cache in a directory of graph files (a run's is RUN_DIR/graph, named by
// journal/run_paths.h): <cache_dir>/<repo>-<key>.json, keyed by
// repository name, commit, extractor fingerprint (version + query hash), the
// graph options that change output and what else chose the files (the
// repository's skip globs). A corrupt or foreign cache file is a miss (rebuilt
// and overwritten), never an error: every file is read as hostile input
// (bounded size, bounded JSON depth, every field and edge checked).
//
// A second, shared directory outlives runs (UserCacheDir("graphs"), e.g.
// ~/.cache/seragen/graphs): a new run of a repository at a commit seen before
// takes its graph from there instead of parsing the tree again, and the
// directory is pruned to a byte bound, least recently used first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/callgraph/graph.h"

namespace seragen::callgraph {

// 24 hex characters; changes when any input of the key changes. `source_key`
// names what else chose the files the graph was built from ("" = nothing).
std::string GraphCacheKey(std::string_view repo_name, std::string_view commit, const GraphOptions& options,
                          std::string_view source_key = "");

// <cache_dir>/<repo name with '/' and unsafe characters replaced>-<key>.json
std::string GraphCachePath(std::string_view cache_dir, std::string_view repo_name, std::string_view commit,
                           const GraphOptions& options, std::string_view source_key = "");

// "<repo name made safe>-": the start of the name of every cache file of
// that repository (readers such as `seragen report` list them without
// knowing the graph options).
std::string GraphCacheFilePrefix(std::string_view repo_name);

// The largest cached graph file read back.
inline constexpr std::uint64_t kMaxGraphCacheBytes = 1ull << 30;

// nullopt when absent, not a regular file (ReadRegularFile) or unreadable as
// a graph.
std::optional<CallGraph> LoadCachedGraph(std::string_view cache_dir, std::string_view repo_name,
                                         std::string_view commit, const GraphOptions& options,
                                         std::string_view source_key = "");

// Durable write (temp + fsync + rename).
Status StoreCachedGraph(std::string_view cache_dir, std::string_view repo_name, std::string_view commit,
                        const GraphOptions& options, const CallGraph& graph, std::string_view source_key = "");

// The shared cache's default bound.
inline constexpr std::uint64_t kDefaultSharedGraphCacheBytes = 2ull << 30;

// Where else BuildGraphCached looks, and what else keys the graph.
struct GraphCacheScope {
  std::string shared_dir;  // "" = no shared cache
  std::uint64_t shared_max_bytes = kDefaultSharedGraphCacheBytes;
  std::string source_key;  // GraphCacheKey's source_key
};

// Removes the least recently used (oldest mtime) graph files of `dir` until
// the rest hold at most `max_bytes`; names other than graph files are left.
Status PruneGraphCache(const std::string& dir, std::uint64_t max_bytes);

// Load from cache, or build from `source` and store. An empty `commit` means
// the source is not pinned (a plain directory): always build, never cache.
// With a shared directory in `scope`: a miss in `cache_dir` is looked up
// there (a hit is copied into `cache_dir` and marked used), and a graph built
// here is stored there too, then the shared directory is pruned; a failure to
// use the shared directory is logged, never an error.
Result<CallGraph> BuildGraphCached(const FileSource& source, std::string_view cache_dir, std::string_view repo_name,
                                   std::string_view commit, const GraphOptions& options, bool* from_cache = nullptr,
                                   const GraphCacheScope& scope = {});

}  // namespace seragen::callgraph
