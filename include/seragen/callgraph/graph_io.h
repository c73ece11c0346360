// Writing and reading call graphs: JSON (the cache format and `seragen graph
// --format json`), Graphviz DOT, and a human-readable stats summary.
#pragma once

#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/callgraph/graph.h"

namespace seragen::callgraph {

// {"format":"seragen-callgraph","version":1,"nodes":[{id,path,qualname,language,
//  start_line,end_line,loc,has_doc}...],"edges":[{caller,callee,resolution,line}...],
//  "stats":{...}} with edges naming node ids. Deterministic bytes for a graph.
std::string WriteGraphJson(const CallGraph& graph);

// Inverse of WriteGraphJson. ParseError naming the problem for malformed or
// foreign input (wrong format tag/version, unknown node id in an edge, ...).
Result<CallGraph> ReadGraphJson(std::string_view json);

// digraph with one node per function (label = id) and edges labelled with
// their resolution. Quotes and backslashes in ids are escaped.
std::string WriteGraphDot(const CallGraph& graph);

// Multi-line summary: files, languages, skips, functions, call sites,
// resolution breakdown, ambiguous/unresolved.
std::string FormatGraphStats(const GraphStats& stats);

}  // namespace seragen::callgraph
