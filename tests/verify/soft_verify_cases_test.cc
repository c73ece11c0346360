// Runs every hand-checked patch pair under tests/verify/cases/NN-name/:
// p1.diff, p2.diff and expected.txt ("key value" lines; ratios as fractions
// "a/b" computed by hand from the counts, '#' starts a comment).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "seragen/base/file_util.h"
#include "seragen/verify/scores.h"
#include "testing/source_paths.h"

namespace seragen::verify {
namespace {

namespace fs = std::filesystem;

std::map<std::string, std::string> ReadExpected(const std::string& path) {
  std::map<std::string, std::string> out;
  std::istringstream in(ReadFile(path).value());
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto space = line.find(' ');
    REQUIRE(space != std::string::npos);
    out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

double Fraction(const std::string& text) {
  auto slash = text.find('/');
  if (slash == std::string::npos) return std::stod(text);
  return std::stod(text.substr(0, slash)) / std::stod(text.substr(slash + 1));
}

std::vector<fs::path> CaseDirs() {
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(seragen::testing::SourcePath("tests/verify/cases"))) {
    if (entry.is_directory()) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

}  // namespace

TEST_CASE("hand-checked patch pairs score as expected", "[verify][cases]") {
  auto dirs = CaseDirs();
  REQUIRE(dirs.size() >= 30);
  for (const auto& dir : dirs) {
    INFO("case " << dir.filename().string());
    auto expected = ReadExpected((dir / "expected.txt").string());
    Scores s = ScorePatches(ReadFile((dir / "p1.diff").string()).value(), ReadFile((dir / "p2.diff").string()).value(),
                            VerifyRule::kStructural);
    CHECK(s.p1_lines == std::stoul(expected.at("p1_lines")));
    CHECK(s.p2_lines == std::stoul(expected.at("p2_lines")));
    CHECK(s.matched == std::stoul(expected.at("matched")));
    CHECK(s.recall == Approx(Fraction(expected.at("recall"))).margin(1e-12));
    CHECK(s.precision == Approx(Fraction(expected.at("precision"))).margin(1e-12));
    CHECK(s.f1 == Approx(Fraction(expected.at("f1"))).margin(1e-12));
    CHECK(s.scorable == (expected.at("scorable") == "true"));
    CHECK(Accept(s, 0.5) == (expected.at("accepted_at_0.5") == "true"));
    // Threshold 0 accepts exactly the scorable pairs.
    CHECK(Accept(s, 0.0) == s.scorable);
  }
}

TEST_CASE("the fixture set covers the required kinds of patches", "[verify][cases]") {
  std::string names;
  for (const auto& dir : CaseDirs()) names += dir.filename().string() + "\n";
  for (const char* kind : {"repeated", "whitespace", "crlf", "no-newline", "binary", "multi-file", "empty-p1"}) {
    INFO("kind " << kind);
    CHECK(names.find(kind) != std::string::npos);
  }
}

}  // namespace seragen::verify
