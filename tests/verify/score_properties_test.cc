// Properties that must hold for every patch, checked over the fixture set and
// over deterministic random patch-like text.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "seragen/base/file_util.h"
#include "seragen/base/rng.h"
#include "seragen/verify/scores.h"
#include "testing/source_paths.h"

namespace seragen::verify {
namespace {

std::vector<std::string> FixturePatches() {
  std::vector<std::string> patches;
  for (const auto& entry : std::filesystem::directory_iterator(seragen::testing::SourcePath("tests/verify/cases"))) {
    if (!entry.is_directory()) continue;
    for (const char* name : {"p1.diff", "p2.diff"}) {
      auto text = ReadFile((entry.path() / name).string());
      INFO(entry.path().string() << "/" << name);
      REQUIRE(text.ok());
      patches.push_back(*text);
    }
  }
  // An empty or missing case directory must fail, not make every property hold vacuously.
  REQUIRE(patches.size() >= 20);
  return patches;
}

std::string ToCrlf(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' && (out.empty() || out.back() != '\r')) out += '\r';
    out += c;
  }
  return out;
}

}  // namespace

TEST_CASE("a patch against itself has recall and precision 1 unless empty", "[verify][properties]") {
  for (const auto& p : FixturePatches()) {
    Scores s = ScorePatches(p, p, VerifyRule::kStructural);
    CHECK(s.matched == s.p1_lines);
    CHECK(s.scorable == (s.p1_lines > 0));
    if (s.scorable) {
      CHECK(s.recall == 1.0);
      CHECK(s.precision == 1.0);
      CHECK(s.f1 == 1.0);
      CHECK(Accept(s, 1.0));
    }
  }
}

TEST_CASE("saving a patch with CRLF line endings does not change its lines", "[verify][properties]") {
  for (const auto& p : FixturePatches()) {
    ChangedLines lf = ParsePatchLines(p);
    ChangedLines crlf = ParsePatchLines(ToCrlf(p));
    CHECK(lf.counts() == crlf.counts());
  }
}

TEST_CASE("matched is symmetric and bounded for random patch-like text", "[verify][properties]") {
  Rng rng(20261121);
  const std::vector<std::string> pieces = {"+a\n",
                                           "-a\n",
                                           "+b\n",
                                           " a\n",
                                           "\n",
                                           "+\n",
                                           "--- x\n",
                                           "+++ y\n",
                                           "@@ -1,2 +1,2 @@\n",
                                           "@@ -0,0 +1 @@\n",
                                           "diff --git a/x b/x\n",
                                           "\\ No newline at end of file\n",
                                           "GIT binary patch\n",
                                           "From 1 x\n",
                                           "-- \n",
                                           "+a\r\n",
                                           "@@ -99999999999999999999,1 +1 @@\n",
                                           "@@ -1,",
                                           "\r",
                                           "\xff\xfe",
                                           "+\t \n"};
  for (int round = 0; round < 300; ++round) {
    std::string a, b;
    for (int i = 0, n = static_cast<int>(rng.Uniform(30)); i < n; ++i) a += pieces[rng.Uniform(pieces.size())];
    for (int i = 0, n = static_cast<int>(rng.Uniform(30)); i < n; ++i) b += pieces[rng.Uniform(pieces.size())];
    Scores ab = ScorePatches(a, b, VerifyRule::kStructural);
    Scores ba = ScorePatches(b, a, VerifyRule::kStructural);
    CHECK(ab.matched == ba.matched);
    CHECK(ab.matched <= std::min(ab.p1_lines, ab.p2_lines));
    CHECK(ab.recall >= 0.0);
    CHECK(ab.recall <= 1.0);
    CHECK(ab.f1 <= 1.0);
    CHECK(ab.p1_lines == ba.p2_lines);
  }
}

}  // namespace seragen::verify
