#include "seragen/callgraph/selection.h"

#include <fmt/format.h>

#include "seragen/base/enum_names.h"
#include "seragen/base/glob.h"
#include "seragen/base/rng.h"

namespace seragen::callgraph {
namespace {

bool NameLooksLikeTest(std::string_view qualname, const std::vector<std::string>& patterns) {
  std::size_t start = 0;
  while (start <= qualname.size()) {
    std::size_t dot = qualname.find('.', start);
    std::string_view segment =
        qualname.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    std::size_t tilde = segment.find('~');  // "name~2" duplicates
    if (tilde != std::string_view::npos) segment = segment.substr(0, tilde);
    if (GlobMatchAny(patterns, segment)) return true;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return false;
}

}  // namespace

std::vector<std::string> DefaultTestPathPatterns() {
  return {"test/**",        "tests/**",     "**/test/**",  "**/tests/**", "**/testing/**", "**/__tests__/**",
          "**/spec/**",     "test_*.py",    "*_test.py",   "conftest.py", "*_test.go",     "*.test.js",
          "*.test.jsx",     "*.test.ts",    "*.test.tsx",  "*.spec.js",   "*.spec.ts",     "*.spec.tsx",
          "**/src/test/**", "*Test.java",   "*Tests.java", "*_test.cc",   "*_test.cpp",    "*_unittest.cc",
          "*_test.c",       "**/benches/**"};
}

std::vector<std::string> DefaultAuxiliaryPatterns() {
  return {"examples/**",  "**/examples/**", "example/**",  "**/example/**", "docs/**",
          "**/docs/**",   "doc/**",         "**/doc/**",   "benchmarks/**", "**/benchmarks/**",
          "asv_bench/**", "setup.py",       "conftest.py", "noxfile.py",    "fabfile.py"};
}

constexpr std::pair<EdgeRequirement, std::string_view> kEdgeRequirementNames[] = {
    {EdgeRequirement::kNone, "none"}, {EdgeRequirement::kAny, "any"}, {EdgeRequirement::kCallees, "callees"}};

std::optional<EdgeRequirement> EdgeRequirementFromName(std::string_view name) {
  return ValueNamed<EdgeRequirement>(kEdgeRequirementNames, name);
}

std::vector<std::string> DefaultTestNamePatterns() {
  return {"test_*", "test",  "Test*",    "*Test",      "*Tests",       "*_test",
          "tests",  "setUp", "tearDown", "setUpClass", "tearDownClass"};
}

Status ValidateSelectionOptions(const SelectionOptions& options) {
  if (options.min_lines < 0) {
    return InvalidArgumentError(fmt::format("selection.min_lines ({}) must be >= 0", options.min_lines));
  }
  if (options.max_lines < 0) {
    return InvalidArgumentError(fmt::format("selection.max_lines ({}) must be >= 0", options.max_lines));
  }
  if (options.max_folder_depth < 0) {
    return InvalidArgumentError(fmt::format("selection.max_folder_depth ({}) must be >= 0", options.max_folder_depth));
  }
  if (options.max_lines != 0 && options.max_lines < options.min_lines) {
    return InvalidArgumentError(fmt::format("selection.max_lines ({}) is below selection.min_lines ({})",
                                            options.max_lines, options.min_lines));
  }
  for (const std::string& language : options.languages) {
    if (!LanguageFromName(language)) {
      return InvalidArgumentError(
          fmt::format("selection.languages: unknown language '{}' (known: python, javascript, typescript, tsx, go, "
                      "rust, java, c, cpp)",
                      language));
    }
  }
  return Status::Ok();
}

int FolderDepth(std::string_view path) {
  int depth = 0;
  for (char c : path) depth += c == '/' ? 1 : 0;
  return depth;
}

std::string RejectionReason(const CallGraph& graph, std::uint32_t index, const SelectionOptions& options,
                            const std::vector<std::uint32_t>& out_degrees,
                            const std::vector<std::uint32_t>& in_degrees) {
  const FunctionNode& node = graph.nodes[index];
  if (!options.include.empty() && !GlobMatchAny(options.include, node.path)) return "include";
  if (GlobMatchAny(options.exclude, node.path)) return "exclude";
  if (!options.languages.empty()) {
    bool listed = false;
    for (const std::string& language : options.languages) listed |= language == LanguageName(node.language);
    if (!listed) return "language";
  }
  if (options.exclude_tests && (GlobMatchAny(options.test_path_patterns, node.path) ||
                                NameLooksLikeTest(node.qualname, options.test_name_patterns))) {
    return "test";
  }
  if (options.exclude_auxiliary && GlobMatchAny(options.auxiliary_patterns, node.path)) return "auxiliary";
  if (options.max_folder_depth > 0 && FolderDepth(node.path) > options.max_folder_depth) return "too_deep";
  int lines = node.end_line - node.start_line + 1;
  if (lines < options.min_lines) return "too_short";
  if (options.max_lines > 0 && lines > options.max_lines) return "too_long";
  std::uint32_t callees = index < out_degrees.size() ? out_degrees[index] : 0;
  std::uint32_t callers = index < in_degrees.size() ? in_degrees[index] : 0;
  if (options.require_edges == EdgeRequirement::kAny && callees == 0 && callers == 0) return "no_edges";
  if (options.require_edges == EdgeRequirement::kCallees && callees == 0) return "no_callees";
  return {};
}

std::vector<std::uint32_t> SelectFunctions(const CallGraph& graph, const SelectionOptions& options, std::uint64_t seed,
                                           std::string_view repo, SelectionCounts* counts) {
  SelectionCounts local;
  SelectionCounts& tally = counts != nullptr ? *counts : local;
  tally = SelectionCounts{};
  std::vector<std::uint32_t> out_degrees = graph.OutDegrees();
  std::vector<std::uint32_t> in_degrees = graph.InDegrees();
  std::vector<std::uint32_t> selected;
  for (std::uint32_t i = 0; i < graph.nodes.size(); ++i) {
    std::string reason = RejectionReason(graph, i, options, out_degrees, in_degrees);
    if (reason.empty()) {
      selected.push_back(i);
    } else {
      tally.rejected[reason]++;
    }
  }
  tally.eligible = selected.size();
  Rng rng = Rng::Derive(seed, repo, "function-order");
  rng.Shuffle(selected);
  if (options.max_functions > 0 && selected.size() > options.max_functions) {
    tally.over_cap = selected.size() - options.max_functions;
    selected.resize(options.max_functions);
  }
  return selected;
}

std::string FormatSelectionCounts(const SelectionCounts& counts, std::size_t picked) {
  std::string text = fmt::format("{} eligible, {} picked", counts.eligible, picked);
  if (counts.over_cap > 0) text += fmt::format(" ({} over the cap)", counts.over_cap);
  if (!counts.rejected.empty()) {
    text += "; rejected:";
    const char* sep = " ";
    for (const auto& [reason, n] : counts.rejected) {
      text += fmt::format("{}{} {}", sep, reason, n);
      sep = ", ";
    }
  }
  return text;
}

}  // namespace seragen::callgraph
