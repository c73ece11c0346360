// Golden tests: for every fixture tree under tests/callgraph/fixtures/<language>/<case>/,
// build the call graph and compare its edges with <case>/expected.txt.
//
// expected.txt: one edge per line, "caller_id -> callee_id [resolution]";
// '#' starts a comment. The test prints precision and recall per language and
// fails when either is below 0.9 (or a language has too few cases).
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "seragen/base/file_util.h"
#include "seragen/callgraph/graph.h"
#include "seragen/callgraph/source_set.h"
#include "testing/source_paths.h"

namespace seragen::callgraph {
namespace {

namespace fs = std::filesystem;

struct ExpectedEdge {
  std::string label;  // "" = any
  int line_no = 0;
};

std::map<std::pair<std::string, std::string>, ExpectedEdge> ReadExpected(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  REQUIRE(text.ok());
  std::map<std::pair<std::string, std::string>, ExpectedEdge> edges;
  std::istringstream in(*text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream fields(line);
    std::string caller, arrow, callee, label;
    if (!(fields >> caller)) continue;
    INFO(path << ":" << line_no);
    REQUIRE((fields >> arrow >> callee));
    REQUIRE(arrow == "->");
    fields >> label;
    if (!label.empty()) {
      REQUIRE(label.front() == '[');
      REQUIRE(label.back() == ']');
      label = label.substr(1, label.size() - 2);
    }
    REQUIRE(edges.emplace(std::make_pair(caller, callee), ExpectedEdge{label, line_no}).second);
  }
  return edges;
}

struct Score {
  int cases = 0;
  int true_positives = 0;
  int false_positives = 0;
  int false_negatives = 0;
  int label_mismatches = 0;
  double Precision() const {
    int predicted = true_positives + false_positives;
    return predicted == 0 ? 1.0 : static_cast<double>(true_positives) / predicted;
  }
  double Recall() const {
    int actual = true_positives + false_negatives;
    return actual == 0 ? 1.0 : static_cast<double>(true_positives) / actual;
  }
};

Score ScoreLanguage(const std::string& language, std::string* report) {
  Score score;
  fs::path root = fs::path(seragen::testing::SourcePath("tests/callgraph/fixtures")) / language;
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory()) cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  for (const fs::path& dir : cases) {
    ++score.cases;
    auto expected = ReadExpected((dir / "expected.txt").string());
    DirectoryFileSource source(dir.string());
    GraphOptions options;
    options.threads = 2;
    Result<CallGraph> graph = BuildGraph(source, options);
    REQUIRE(graph.ok());
    std::set<std::pair<std::string, std::string>> seen;
    for (const CallEdge& edge : graph->edges) {
      auto key = std::make_pair(graph->nodes[edge.caller].id, graph->nodes[edge.callee].id);
      seen.insert(key);
      auto it = expected.find(key);
      if (it == expected.end()) {
        ++score.false_positives;
        *report += fmt::format("  {} unexpected edge {} -> {} [{}]\n", dir.filename().string(), key.first, key.second,
                               ResolutionName(edge.resolution));
        continue;
      }
      ++score.true_positives;
      if (!it->second.label.empty() && it->second.label != ResolutionName(edge.resolution)) {
        ++score.label_mismatches;
        *report += fmt::format("  {} label of {} -> {}: got {}, want {}\n", dir.filename().string(), key.first,
                               key.second, ResolutionName(edge.resolution), it->second.label);
      }
    }
    for (const auto& [key, edge] : expected) {
      if (seen.count(key) == 0) {
        ++score.false_negatives;
        *report += fmt::format("  {} missing edge {} -> {}\n", dir.filename().string(), key.first, key.second);
      }
    }
  }
  return score;
}

void CheckLanguage(const std::string& language, int min_cases) {
  std::string report;
  Score score = ScoreLanguage(language, &report);
  std::printf("callgraph golden %-10s cases=%2d edges=%3d precision=%.3f recall=%.3f label_mismatches=%d\n",
              language.c_str(), score.cases, score.true_positives + score.false_negatives, score.Precision(),
              score.Recall(), score.label_mismatches);
  if (!report.empty()) std::printf("%s", report.c_str());
  CHECK(score.cases >= min_cases);
  CHECK(score.Precision() >= 0.9);
  CHECK(score.Recall() >= 0.9);
  CHECK(score.label_mismatches * 10 <= score.true_positives);
}

TEST_CASE("golden call graph: python", "[golden]") { CheckLanguage("python", 15); }
TEST_CASE("golden call graph: javascript", "[golden]") { CheckLanguage("javascript", 15); }
TEST_CASE("golden call graph: typescript", "[golden]") { CheckLanguage("typescript", 6); }
TEST_CASE("golden call graph: go", "[golden]") { CheckLanguage("go", 6); }
TEST_CASE("golden call graph: rust", "[golden]") { CheckLanguage("rust", 6); }
TEST_CASE("golden call graph: java", "[golden]") { CheckLanguage("java", 6); }
TEST_CASE("golden call graph: c", "[golden]") { CheckLanguage("c", 6); }
TEST_CASE("golden call graph: cpp", "[golden]") { CheckLanguage("cpp", 6); }

}  // namespace
}  // namespace seragen::callgraph
