#include "seragen/config/prompt_files.h"

#include <catch2/catch.hpp>

#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::config {

TEST_CASE("the shipped category prompts: 51 entries in bug_categories order", "[prompts]") {
  auto cats = LoadCategoryPrompts(seragen::testing::SourcePath("prompts/categories.yaml"));
  REQUIRE(cats.ok());
  REQUIRE(cats->size() == 51);
  CHECK((*cats)[0].topic == "general unexpected behavior");
  CHECK((*cats)[50].topic == "input/output handling and data flow");
  for (const auto& c : *cats) CHECK(c.prompt.size() > 20);
}

TEST_CASE("malformed category files name the problem", "[prompts]") {
  testing::TempDir dir;
  dir.Write("a.yaml", "categories:\n  - topic: x\n");
  auto r = LoadCategoryPrompts(dir.Sub("a.yaml"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("categories.0 needs a 'topic' and a non-empty 'prompt'") != std::string::npos);
  dir.Write("b.yaml", "categories: [");
  CHECK_FALSE(LoadCategoryPrompts(dir.Sub("b.yaml")).ok());
  CHECK_FALSE(LoadCategoryPrompts(dir.Sub("missing.yaml")).ok());
}

}  // namespace seragen::config
