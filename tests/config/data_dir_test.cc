#include "seragen/config/data_dir.h"

#include <catch2/catch.hpp>

#include "testing/temp_dir.h"

namespace seragen::config {

TEST_CASE("an installed binary uses the data installed beside it, even with SERAGEN_DATA_DIR set",
          "[config][data_dir]") {
  testing::TempDir t;
  t.Write("prefix/share/seragen/prompts/system.md", "x");
  t.Write("other/prompts/system.md", "x");
  t.Write("src/prompts/system.md", "x");
  DataDirChoice c = ChooseDataDir({t.Sub("prefix/bin/seragen"), t.Sub("other"), t.Sub("src")});
  CHECK(c.path == t.Sub("prefix/share/seragen"));
  CHECK(c.origin == "installed");
  CHECK(c.found);
}

TEST_CASE("a binary outside an install prefix uses SERAGEN_DATA_DIR, then the source tree", "[config][data_dir]") {
  testing::TempDir t;
  t.Write("other/prompts/system.md", "x");
  t.Write("src/prompts/system.md", "x");
  // build/seragen: build/../share/seragen does not exist in a checkout.
  DataDirChoice env = ChooseDataDir({t.Sub("src/build/seragen"), t.Sub("other"), t.Sub("src")});
  CHECK(env.path == t.Sub("other"));
  CHECK(env.origin == "SERAGEN_DATA_DIR");
  CHECK(env.found);
  DataDirChoice tree = ChooseDataDir({t.Sub("src/build/seragen"), "", t.Sub("src")});
  CHECK(tree.path == t.Sub("src"));
  CHECK(tree.origin == "source tree");
  CHECK(tree.found);
}

TEST_CASE("a share/seragen without prompts is not taken for an install, and a missing choice says so",
          "[config][data_dir]") {
  testing::TempDir t;
  t.Write("prefix/share/seragen/README", "x");
  DataDirChoice c = ChooseDataDir({t.Sub("prefix/bin/seragen"), "", t.Sub("gone")});
  CHECK(c.origin == "source tree");
  CHECK_FALSE(c.found);
  DataDirChoice env = ChooseDataDir({"", t.Sub("nowhere"), t.Sub("gone")});
  CHECK(env.origin == "SERAGEN_DATA_DIR");
  CHECK_FALSE(env.found);
}

}  // namespace seragen::config
