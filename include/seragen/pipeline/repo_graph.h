// `seragen graph`: the call graph of a git repository at a commit (optionally
// cached) or of a plain directory, and its text forms.
#pragma once

#include <string>

#include "seragen/base/result.h"
#include "seragen/callgraph/graph.h"

namespace seragen::pipeline {

struct GraphRequest {
  std::string source;           // repository path or URL, or a plain directory
  std::string commit = "HEAD";  // branch, tag or commit (git sources only)
  // Clones and cached graphs (under GraphDir(cache_dir)) go here; "" means no
  // graph cache and clones into ".seragen-cache".
  std::string cache_dir;
  callgraph::GraphOptions options;
};

// InvalidArgument naming the problem when the request itself is wrong: the
// source is neither a repository nor a directory, cannot be opened or cloned,
// or the commit does not resolve. Other errors come from building the graph.
Result<callgraph::CallGraph> BuildRequestedGraph(const GraphRequest& request);

enum class GraphFormat { kJson, kDot, kStats };

// The graph as `format`, ending in a newline unless empty.
std::string RenderGraph(const callgraph::CallGraph& graph, GraphFormat format);

}  // namespace seragen::pipeline
