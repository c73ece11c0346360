#include "seragen/pipeline/repo_graph.h"

#include <filesystem>

#include "pipeline/repo_source.h"
#include "seragen/callgraph/graph_cache.h"
#include "seragen/callgraph/graph_io.h"
#include "seragen/callgraph/source_set.h"
#include "seragen/journal/run_paths.h"
#include "seragen/repo/repository.h"

namespace seragen::pipeline {
namespace {

bool LooksLikeGit(const std::string& source) {
  std::error_code ec;
  return std::filesystem::exists(source + "/.git", ec) || repo::LooksLikeUrl(source) ||
         std::filesystem::exists(source + "/HEAD", ec);
}

Status AsBadRequest(const Status& s) { return InvalidArgumentError(s.message()); }

Result<callgraph::CallGraph> GitGraph(const GraphRequest& request) {
  auto repository =
      repo::Repository::OpenOrClone(request.source, request.cache_dir.empty() ? ".seragen-cache" : request.cache_dir);
  if (!repository.ok()) return AsBadRequest(repository.status());
  auto commit = repository->ResolveCommit(request.commit);
  if (!commit.ok()) return AsBadRequest(commit.status());
  RepoFileSource files(&*repository, *commit, repo::FileFilter{});
  if (request.cache_dir.empty()) return callgraph::BuildGraph(files, request.options);
  const std::string name = std::filesystem::path(request.source).filename().string();
  return callgraph::BuildGraphCached(files, journal::GraphDir(request.cache_dir), name, *commit, request.options);
}

}  // namespace

Result<callgraph::CallGraph> BuildRequestedGraph(const GraphRequest& request) {
  if (LooksLikeGit(request.source)) return GitGraph(request);
  std::error_code ec;
  if (!std::filesystem::is_directory(request.source, ec)) {
    return InvalidArgumentError(request.source + " is neither a repository nor a directory");
  }
  callgraph::DirectoryFileSource files(request.source);
  return callgraph::BuildGraph(files, request.options);
}

std::string RenderGraph(const callgraph::CallGraph& graph, GraphFormat format) {
  std::string text;
  switch (format) {
    case GraphFormat::kJson: text = callgraph::WriteGraphJson(graph); break;
    case GraphFormat::kDot: text = callgraph::WriteGraphDot(graph); break;
    case GraphFormat::kStats: text = callgraph::FormatGraphStats(graph.stats); break;
  }
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

}  // namespace seragen::pipeline
