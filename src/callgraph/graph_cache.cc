#include "seragen/callgraph/graph_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/log.h"
#include "seragen/base/unique_fd.h"
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

std::string GraphCacheKey(std::string_view repo_name, std::string_view commit, const GraphOptions& options,
                          std::string_view source_key) {
  // Threads and the parse timeout do not change a successful graph's content
  // (a timeout shows in stats, but retrying with a longer one is a user choice).
  std::string key = ContentId({repo_name, commit, ExtractorFingerprint(), std::to_string(options.max_file_bytes),
                               options.skip_generated ? "gen1" : "gen0", options.link_ambiguous ? "amb1" : "amb0",
                               std::to_string(options.max_ambiguous_candidates)},
                              24);
  // Keys made without a source key stay as they were.
  return source_key.empty() ? key : ContentId({key, source_key}, 24);
}

std::string GraphCachePath(std::string_view cache_dir, std::string_view repo_name, std::string_view commit,
                           const GraphOptions& options, std::string_view source_key) {
  return std::string(cache_dir) + "/" + SafeName(repo_name) + "-" +
         GraphCacheKey(repo_name, commit, options, source_key) + ".json";
}

std::string GraphCacheFilePrefix(std::string_view repo_name) { return SafeName(repo_name) + "-"; }

std::optional<CallGraph> LoadCachedGraph(std::string_view cache_dir, std::string_view repo_name,
                                         std::string_view commit, const GraphOptions& options,
                                         std::string_view source_key) {
  Result<std::string> text =
      ReadRegularFile(GraphCachePath(cache_dir, repo_name, commit, options, source_key), kMaxGraphCacheBytes);
  if (!text.ok()) return std::nullopt;
  Result<CallGraph> graph = ReadGraphJson(*text);
  if (!graph.ok()) return std::nullopt;
  return std::move(graph).value();
}

Status StoreCachedGraph(std::string_view cache_dir, std::string_view repo_name, std::string_view commit,
                        const GraphOptions& options, const CallGraph& graph, std::string_view source_key) {
  SG_RETURN_IF_ERROR(MakeDirs(std::string(cache_dir)));
  return WriteFileAtomic(GraphCachePath(cache_dir, repo_name, commit, options, source_key), WriteGraphJson(graph));
}

namespace {

// A temporary file of an atomic write ("<entry>.json.tmp.<pid>.<n>") older
// than an hour: its writer was killed before the rename, and nobody else
// will remove it.
bool IsAbandonedTemp(const std::string& path, const struct stat& st) {
  return path.find(".json.tmp.") != std::string::npos && st.st_mtime < ::time(nullptr) - 3600;
}

}  // namespace

Status PruneGraphCache(const std::string& dir, std::uint64_t max_bytes) {
  struct File {
    std::string path;
    std::uint64_t bytes;
    struct timespec mtime;
  };
  std::vector<File> files;
  std::uint64_t total = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string path = it->path().string();
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (IsAbandonedTemp(path, st)) {
      std::filesystem::remove(path, ec);  // a writer killed before its rename
      ec.clear();
      continue;
    }
    if (!path.ends_with(".json")) continue;
    files.push_back({path, static_cast<std::uint64_t>(st.st_size), st.st_mtim});
    total += static_cast<std::uint64_t>(st.st_size);
  }
  if (ec) return IoError("cannot list the graph cache " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end(), [](const File& a, const File& b) {
    return a.mtime.tv_sec != b.mtime.tv_sec ? a.mtime.tv_sec < b.mtime.tv_sec : a.mtime.tv_nsec < b.mtime.tv_nsec;
  });
  for (const File& f : files) {
    if (total <= max_bytes) break;
    std::filesystem::remove(f.path, ec);
    if (ec) return IoError("cannot remove " + f.path + " from the graph cache: " + ec.message());
    total -= f.bytes;
  }
  return Status::Ok();
}

namespace {

const log::Logger& Log() {
  static const log::Logger logger("callgraph");
  return logger;
}

// The shared directory made if missing and usable: a directory (not a
// link) owned by this user, closed to others (made so if it is ours). Graphs
// describe private code, and a directory another user made or can write
// could hand us a planted graph or read ours.
bool SharedDirUsable(const std::string& dir) {
  if (!MakeDirs(dir).ok()) return false;
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  bool usable = fd.valid() && ::fstat(fd.get(), &st) == 0 && st.st_uid == ::geteuid();
  if (usable && (st.st_mode & 077) != 0) usable = ::fchmod(fd.get(), 0700) == 0;
  if (!usable) Log().Warn("the shared graph cache {} is not used: not a directory of this user's alone", dir);
  return usable;
}

// A graph whose parse ran out of time on some file depends on the machine's
// load: it stays in the run's own directory and is never shared.
bool Shareable(const CallGraph& graph) { return graph.stats.files_skipped.count("parse_timeout") == 0; }

// The shared directory's graph of this key, marked used (for pruning), and
// copied as it is (no second encoding) into `cache_dir`.
Result<std::optional<CallGraph>> TakeShared(const GraphCacheScope& scope, std::string_view cache_dir,
                                            std::string_view repo_name, std::string_view commit,
                                            const GraphOptions& options) {
  if (scope.shared_dir.empty() || !SharedDirUsable(scope.shared_dir)) return std::optional<CallGraph>();
  const std::string path = GraphCachePath(scope.shared_dir, repo_name, commit, options, scope.source_key);
  Result<std::string> text = ReadRegularFile(path, kMaxGraphCacheBytes);
  if (!text.ok()) return std::optional<CallGraph>();
  Result<CallGraph> graph = ReadGraphJson(*text);
  if (!graph.ok() || !Shareable(*graph)) return std::optional<CallGraph>();
  (void)::utimensat(AT_FDCWD, path.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
  SG_RETURN_IF_ERROR(MakeDirs(std::string(cache_dir)));
  SG_RETURN_IF_ERROR(WriteFileAtomic(GraphCachePath(cache_dir, repo_name, commit, options, scope.source_key), *text)
                         .WithContext("storing the call graph cache"));
  return std::optional<CallGraph>(std::move(graph).value());
}

void StoreShared(const GraphCacheScope& scope, std::string_view repo_name, std::string_view commit,
                 const GraphOptions& options, const CallGraph& graph) {
  if (scope.shared_dir.empty() || !Shareable(graph) || !SharedDirUsable(scope.shared_dir)) return;
  Status stored = StoreCachedGraph(scope.shared_dir, repo_name, commit, options, graph, scope.source_key);
  if (stored.ok()) stored = PruneGraphCache(scope.shared_dir, scope.shared_max_bytes);
  if (!stored.ok()) Log().Warn("the shared graph cache {} is not used: {}", scope.shared_dir, stored.ToString());
}

}  // namespace

Result<CallGraph> BuildGraphCached(const FileSource& source, std::string_view cache_dir, std::string_view repo_name,
                                   std::string_view commit, const GraphOptions& options, bool* from_cache,
                                   const GraphCacheScope& scope) {
  if (from_cache != nullptr) *from_cache = false;
  if (commit.empty()) return BuildGraph(source, options);
  auto store_here = [&](const CallGraph& graph) {
    return StoreCachedGraph(cache_dir, repo_name, commit, options, graph, scope.source_key)
        .WithContext("storing the call graph cache");
  };
  if (std::optional<CallGraph> cached = LoadCachedGraph(cache_dir, repo_name, commit, options, scope.source_key)) {
    if (from_cache != nullptr) *from_cache = true;
    return std::move(*cached);
  }
  SG_ASSIGN_OR_RETURN(std::optional<CallGraph> shared, TakeShared(scope, cache_dir, repo_name, commit, options));
  if (shared) {
    if (from_cache != nullptr) *from_cache = true;
    return std::move(*shared);
  }
  SG_ASSIGN_OR_RETURN(CallGraph graph, BuildGraph(source, options));
  SG_RETURN_IF_ERROR(store_here(graph));
  StoreShared(scope, repo_name, commit, options, graph);
  return graph;
}

}  // namespace seragen::callgraph
