#include "seragen/callgraph/graph_cache.h"

#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/callgraph/graph_io.h"

namespace seragen::callgraph {
namespace {

std::string SafeName(std::string_view name) {
  std::string out;
  for (char c : name) {
    bool safe =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    out.push_back(safe ? c : '_');
  }
  if (out.empty() || out[0] == '.') out.insert(out.begin(), '_');
  return out.substr(0, 80);
}

}  // namespace

std::string GraphCacheKey(std::string_view repo_name, std::string_view commit, const GraphOptions& options) {
  // Threads and the parse timeout do not change a successful graph's content
  // (a timeout shows in stats, but retrying with a longer one is a user choice).
  return ContentId({repo_name, commit, ExtractorFingerprint(), std::to_string(options.max_file_bytes),
                    options.skip_generated ? "gen1" : "gen0", options.link_ambiguous ? "amb1" : "amb0",
                    std::to_string(options.max_ambiguous_candidates)},
                   24);
}

std::string GraphCachePath(std::string_view cache_dir, std::string_view repo_name, std::string_view commit,
                           const GraphOptions& options) {
  return std::string(cache_dir) + "/" + SafeName(repo_name) + "-" + GraphCacheKey(repo_name, commit, options) + ".json";
}

std::string GraphCacheFilePrefix(std::string_view repo_name) { return SafeName(repo_name) + "-"; }

std::optional<CallGraph> LoadCachedGraph(std::string_view cache_dir, std::string_view repo_name,
                                         std::string_view commit, const GraphOptions& options) {
  Result<std::string> text =
      ReadRegularFile(GraphCachePath(cache_dir, repo_name, commit, options), kMaxGraphCacheBytes);
  if (!text.ok()) return std::nullopt;
  Result<CallGraph> graph = ReadGraphJson(*text);
  if (!graph.ok()) return std::nullopt;
  return std::move(graph).value();
}

Status StoreCachedGraph(std::string_view cache_dir, std::string_view repo_name, std::string_view commit,
                        const GraphOptions& options, const CallGraph& graph) {
  return WriteFileAtomic(GraphCachePath(cache_dir, repo_name, commit, options), WriteGraphJson(graph));
}

Result<CallGraph> BuildGraphCached(const FileSource& source, std::string_view cache_dir, std::string_view repo_name,
                                   std::string_view commit, const GraphOptions& options, bool* from_cache) {
  if (from_cache != nullptr) *from_cache = false;
  if (!commit.empty()) {
    if (std::optional<CallGraph> cached = LoadCachedGraph(cache_dir, repo_name, commit, options)) {
      if (from_cache != nullptr) *from_cache = true;
      return std::move(*cached);
    }
  }
  SG_ASSIGN_OR_RETURN(CallGraph graph, BuildGraph(source, options));
  if (!commit.empty()) {
    SG_RETURN_IF_ERROR(
        StoreCachedGraph(cache_dir, repo_name, commit, options, graph).WithContext("storing the call graph cache"));
  }
  return graph;
}

}  // namespace seragen::callgraph
