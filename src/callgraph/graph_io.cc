#include "seragen/callgraph/graph_io.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "seragen/base/json_depth.h"
#include "seragen/callgraph/source_set.h"

namespace seragen::callgraph {
namespace {

using nlohmann::json;

constexpr std::string_view kFormatTag = "seragen-callgraph";
constexpr int kFormatVersion = 1;

json StatsToJson(const GraphStats& stats) {
  json out;
  out["files_listed"] = stats.files_listed;
  out["files_parsed"] = stats.files_parsed;
  out["bytes_parsed"] = stats.bytes_parsed;
  out["lines_parsed"] = stats.lines_parsed;
  out["files_skipped"] = stats.files_skipped;
  out["files_by_language"] = stats.files_by_language;
  out["files_with_syntax_errors"] = stats.files_with_syntax_errors;
  out["files_utf8_repaired"] = stats.files_utf8_repaired;
  out["functions"] = stats.functions;
  out["call_sites"] = stats.call_sites;
  out["call_sites_outside_functions"] = stats.call_sites_outside_functions;
  out["resolved"] = stats.resolved;
  out["ambiguous"] = stats.ambiguous;
  out["unresolved"] = stats.unresolved;
  out["edges"] = stats.edges;
  return out;
}

GraphStats StatsFromJson(const json& in) {
  GraphStats stats;
  stats.files_listed = in.at("files_listed").get<std::uint64_t>();
  stats.files_parsed = in.at("files_parsed").get<std::uint64_t>();
  stats.bytes_parsed = in.at("bytes_parsed").get<std::uint64_t>();
  stats.lines_parsed = in.at("lines_parsed").get<std::uint64_t>();
  stats.files_skipped = in.at("files_skipped").get<std::map<std::string, std::uint64_t>>();
  stats.files_by_language = in.at("files_by_language").get<std::map<std::string, std::uint64_t>>();
  stats.files_with_syntax_errors = in.at("files_with_syntax_errors").get<std::uint64_t>();
  stats.files_utf8_repaired = in.at("files_utf8_repaired").get<std::uint64_t>();
  stats.functions = in.at("functions").get<std::uint64_t>();
  stats.call_sites = in.at("call_sites").get<std::uint64_t>();
  stats.call_sites_outside_functions = in.at("call_sites_outside_functions").get<std::uint64_t>();
  stats.resolved = in.at("resolved").get<std::map<std::string, std::uint64_t>>();
  stats.ambiguous = in.at("ambiguous").get<std::uint64_t>();
  stats.unresolved = in.at("unresolved").get<std::uint64_t>();
  stats.edges = in.at("edges").get<std::uint64_t>();
  return stats;
}

std::string DotEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string WriteGraphJson(const CallGraph& graph) {
  json out;
  out["format"] = kFormatTag;
  out["version"] = kFormatVersion;
  json nodes = json::array();
  for (const FunctionNode& node : graph.nodes) {
    nodes.push_back({{"id", node.id},
                     {"path", node.path},
                     {"qualname", node.qualname},
                     {"language", LanguageName(node.language)},
                     {"start_line", node.start_line},
                     {"end_line", node.end_line},
                     {"loc", node.loc},
                     {"has_doc", node.has_doc}});
  }
  json edges = json::array();
  for (const CallEdge& edge : graph.edges) {
    edges.push_back({{"caller", graph.nodes[edge.caller].id},
                     {"callee", graph.nodes[edge.callee].id},
                     {"resolution", ResolutionName(edge.resolution)},
                     {"line", edge.line}});
  }
  out["nodes"] = std::move(nodes);
  out["edges"] = std::move(edges);
  out["stats"] = StatsToJson(graph.stats);
  return out.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {

// A node as the extractor makes it: a relative path inside the repository
// (no "..") and a 1-based line range in order. Anything else came from a
// damaged or planted file, and callers' line arithmetic would overflow.
bool PlausibleNode(const FunctionNode& node) {
  return IsRepositoryRelative(node.path) && node.start_line >= 1 && node.end_line >= node.start_line && node.loc >= 0;
}

}  // namespace

Result<CallGraph> ReadGraphJson(std::string_view text) {
  SG_RETURN_IF_ERROR(CheckJsonDepth(text, "call graph JSON"));
  try {
    json in = json::parse(text);
    if (!in.is_object() || in.value("format", "") != kFormatTag) {
      return ParseError("call graph JSON: missing or wrong \"format\" (want seragen-callgraph)");
    }
    if (in.value("version", 0) != kFormatVersion) {
      return ParseError(fmt::format("call graph JSON: unsupported version {}", in.value("version", 0)));
    }
    CallGraph graph;
    for (const json& item : in.at("nodes")) {
      FunctionNode node;
      node.id = item.at("id").get<std::string>();
      node.path = item.at("path").get<std::string>();
      node.qualname = item.at("qualname").get<std::string>();
      std::optional<Language> language = LanguageFromName(item.at("language").get<std::string>());
      if (!language) return ParseError(fmt::format("call graph JSON: node {} has an unknown language", node.id));
      node.language = *language;
      node.start_line = item.at("start_line").get<int>();
      node.end_line = item.at("end_line").get<int>();
      node.loc = item.at("loc").get<int>();
      node.has_doc = item.at("has_doc").get<bool>();
      if (!PlausibleNode(node)) {
        return ParseError(fmt::format("call graph JSON: node {} has an impossible path or line range", node.id));
      }
      if (!graph.nodes.empty() && !(graph.nodes.back().id < node.id)) {
        return ParseError(fmt::format("call graph JSON: nodes not sorted by id at {}", node.id));
      }
      graph.nodes.push_back(std::move(node));
    }
    for (const json& item : in.at("edges")) {
      std::string caller = item.at("caller").get<std::string>();
      std::string callee = item.at("callee").get<std::string>();
      std::optional<std::uint32_t> from = graph.FindNode(caller);
      std::optional<std::uint32_t> to = graph.FindNode(callee);
      if (!from || !to) {
        return ParseError(fmt::format("call graph JSON: edge {} -> {} names an unknown node", caller, callee));
      }
      std::optional<Resolution> resolution = ResolutionFromName(item.at("resolution").get<std::string>());
      if (!resolution) return ParseError("call graph JSON: unknown edge resolution");
      graph.edges.push_back({*from, *to, *resolution, item.at("line").get<int>()});
    }
    graph.stats = StatsFromJson(in.at("stats"));
    return graph;
  } catch (const std::exception& error) {
    return ParseError(fmt::format("call graph JSON: {}", error.what()));
  }
}

std::string WriteGraphDot(const CallGraph& graph) {
  std::string out = "digraph callgraph {\n  node [shape=box];\n";
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    out += fmt::format("  n{} [label=\"{}\"];\n", i, DotEscape(graph.nodes[i].id));
  }
  for (const CallEdge& edge : graph.edges) {
    out += fmt::format("  n{} -> n{} [label=\"{}\"];\n", edge.caller, edge.callee, ResolutionName(edge.resolution));
  }
  out += "}\n";
  return out;
}

std::string FormatGraphStats(const GraphStats& stats) {
  std::string out;
  out += fmt::format(
      "files: {} listed, {} parsed ({} lines, {} bytes), {} with syntax errors, "
      "{} with invalid UTF-8 repaired\n",
      stats.files_listed, stats.files_parsed, stats.lines_parsed, stats.bytes_parsed, stats.files_with_syntax_errors,
      stats.files_utf8_repaired);
  for (const auto& [language, count] : stats.files_by_language) {
    out += fmt::format("  {}: {} files\n", language, count);
  }
  for (const auto& [reason, count] : stats.files_skipped) {
    out += fmt::format("  skipped ({}): {}\n", reason, count);
  }
  out += fmt::format("functions: {}\ncall sites: {} in functions, {} outside\n", stats.functions, stats.call_sites,
                     stats.call_sites_outside_functions);
  std::uint64_t resolved = 0;
  for (const auto& [label, count] : stats.resolved) resolved += count;
  out += fmt::format("resolved: {}", resolved);
  for (const auto& [label, count] : stats.resolved) out += fmt::format(" {}={}", label, count);
  out += fmt::format("\nambiguous: {}\nunresolved: {}\nedges: {}\n", stats.ambiguous, stats.unresolved, stats.edges);
  return out;
}

}  // namespace seragen::callgraph
