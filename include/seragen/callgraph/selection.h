// Choosing start functions from a call graph (docs/DESIGN.md §1 step 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/callgraph/graph.h"

namespace seragen::callgraph {

// Path globs that mark test code (seragen/base/glob.h syntax).
std::vector<std::string> DefaultTestPathPatterns();
// Name globs that mark test functions/classes, matched against every
// segment of the qualified name ("TestParser.test_empty" matches twice).
std::vector<std::string> DefaultTestNamePatterns();
// Path globs that mark code outside the package proper: examples, docs,
// benchmarks and setup/task scripts (docs/CALLGRAPH.md lists and explains them).
std::vector<std::string> DefaultAuxiliaryPatterns();

// Which call edges a function needs to be picked.
enum class EdgeRequirement {
  kNone,     // none
  kAny,      // at least one resolved caller or callee (SERA: code2flow drops edge-less functions)
  kCallees,  // at least one resolved callee
};
// "none" / "any" / "callees" (config spelling); nullopt for anything else.
std::optional<EdgeRequirement> EdgeRequirementFromName(std::string_view name);

inline constexpr std::size_t kDefaultMaxFunctions = 5000;  // SERA's cap per repository

struct SelectionOptions {
  std::vector<std::string> include;    // path globs; empty = every path
  std::vector<std::string> exclude;    // path globs
  std::vector<std::string> languages;  // LanguageName values; empty = all
  bool exclude_tests = true;
  std::vector<std::string> test_path_patterns = DefaultTestPathPatterns();
  std::vector<std::string> test_name_patterns = DefaultTestNamePatterns();
  bool exclude_auxiliary = true;
  std::vector<std::string> auxiliary_patterns = DefaultAuxiliaryPatterns();
  int min_lines = 3;    // end_line - start_line + 1
  int max_lines = 400;  // 0 = no maximum
  // Largest FolderDepth of a picked function's file; 0 = no limit. SERA uses 3.
  int max_folder_depth = 0;
  EdgeRequirement require_edges = EdgeRequirement::kAny;
  std::size_t max_functions = kDefaultMaxFunctions;  // per repository; 0 = no cap
};

// Path components after the first one, the file name included
// ("pkg/a/b/mod.py" -> 3, "mod.py" -> 0): SERA's count, the number of "*" in
// the folder wildcard it builds by keeping a path's first component and
// replacing every later one with "*".
int FolderDepth(std::string_view path);

// Checks values (min <= max, non-negative, known languages). The message names
// the field, e.g. "selection.max_lines (10) is below selection.min_lines (20)".
Status ValidateSelectionOptions(const SelectionOptions& options);

// Why a node is rejected ("" = selected), checked in this order: "include",
// "exclude", "language", "test", "auxiliary", "too_deep", "too_short", "too_long",
// "no_edges" (kAny), "no_callees" (kCallees). Degrees are indexed by node
// (CallGraph::OutDegrees / InDegrees). For stats and tests.
std::string RejectionReason(const CallGraph& graph, std::uint32_t node, const SelectionOptions& options,
                            const std::vector<std::uint32_t>& out_degrees,
                            const std::vector<std::uint32_t>& in_degrees);

// What SelectFunctions did, for `seragen plan`.
struct SelectionCounts {
  std::map<std::string, std::size_t> rejected;  // by RejectionReason
  std::size_t eligible = 0;                     // passed every filter
  std::size_t over_cap = 0;                     // eligible but dropped by max_functions
};

// Nodes that pass every filter, in a seeded order (Rng::Derive(seed, repo,
// "function-order")), truncated to max_functions (so the cap keeps a seeded
// uniform sample). Same graph, options, seed and repo ⇒ same result.
// `counts`, when given, receives the tallies.
std::vector<std::uint32_t> SelectFunctions(const CallGraph& graph, const SelectionOptions& options, std::uint64_t seed,
                                           std::string_view repo, SelectionCounts* counts = nullptr);

// "412 eligible, 310 picked; rejected: test 40, auxiliary 21, no_edges 88"
// (reasons in name order; "picked" after the cap).
std::string FormatSelectionCounts(const SelectionCounts& counts, std::size_t picked);

}  // namespace seragen::callgraph
