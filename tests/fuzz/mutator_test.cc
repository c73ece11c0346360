// The mutation driver's own contract, and every target on its seed corpus
// plus the two generators the issue asked for (deep nesting, invalid UTF-8).
#include "fuzz/mutator.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/fuzz_targets.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/utf8.h"
#include "testing/source_paths.h"

namespace seragen::fuzz {
namespace {

std::vector<std::string> Corpus(std::string_view target) {
  std::vector<std::string> out;
  std::string dir = seragen::testing::SourcePath("tests/fuzz/corpus/") + std::string(target);
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.push_back(ss.str());
  }
  return out;
}

void Run(const Target& t, const std::string& input) {
  t.fn(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

}  // namespace

TEST_CASE("the mutator is deterministic per seed and bounded", "[fuzz]") {
  std::vector<std::string> corpus = {"{\"a\":1}", "data: {}\n\n"};
  Mutator a(7, corpus, 64), b(7, corpus, 64), c(8, corpus, 64);
  bool differs = false;
  for (int i = 0; i < 2000; ++i) {
    std::string x = a.Next();
    CHECK(x == b.Next());
    differs = differs || x != c.Next();
    CHECK((x.size() <= 64 || x.size() >= 200));  // only deep-nesting inputs (>= 200 levels) exceed max_len
  }
  CHECK(differs);
}

TEST_CASE("the generators make deep nesting and invalid UTF-8", "[fuzz]") {
  Mutator m(3, {""});
  int deep = 0;
  for (int i = 0; i < 20; ++i) {
    std::string d = m.DeepNesting("{}");
    if (JsonNestingDepth(d, 1000) > 128 || d.find("- - - - ") != std::string::npos) ++deep;
    CHECK_FALSE(IsValidUtf8(m.InvalidUtf8("abc")));
  }
  CHECK(deep == 20);
}

TEST_CASE("every fuzz target takes its seed corpus and the generators' worst cases", "[fuzz]") {
  Mutator m(11, {""});
  for (const Target& t : AllTargets()) {
    INFO(t.name);
    auto corpus = Corpus(t.name);
    CHECK(corpus.size() >= 2);
    for (const auto& input : corpus) {
      Run(t, input);
      Run(t, m.DeepNesting(input));
      Run(t, m.InvalidUtf8(input));
    }
    Run(t, "");
  }
}

}  // namespace seragen::fuzz
