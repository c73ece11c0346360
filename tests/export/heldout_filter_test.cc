#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "seragen/export/heldout_filter.h"

namespace seragen::exporter {
namespace {

TEST_CASE("heldout filter: the paths a patch names, renames and quoted names included", "[heldout]") {
  const std::string patch =
      "diff --git a/pkg/a.py b/pkg/a.py\n--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ -1,2 +1,2 @@\n"
      "--- not a header: a removed line\n+++ nor this\n"
      "diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\nrename to new.py\n"
      "diff --git \"a/x y.py\" \"b/x y.py\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/x y.py\"\n@@ -0,0 +1 "
      "@@\n+z\n";
  CHECK(PatchPaths(patch) == std::set<std::string>{"pkg/a.py", "old.py", "new.py", "x y.py"});
  CHECK(PatchPaths("").empty());
  CHECK(PatchPaths("no diff here\n").empty());
}

TEST_CASE("heldout filter: a patch touches held-out files of its own repository only", "[heldout]") {
  using Files = std::map<std::string, std::vector<std::string>>;
  HeldOutFilter filter(Files{{"r", {"pkg/h.py"}}});
  const std::string touch = "diff --git a/pkg/h.py b/pkg/h.py\n--- a/pkg/h.py\n+++ b/pkg/h.py\n@@ -1 +1 @@\n-a\n+b\n";
  CHECK(filter.Touches("r", touch));
  CHECK_FALSE(filter.Touches("other", touch));
  CHECK_FALSE(filter.Touches("r", "diff --git a/pkg/h.pyc b/pkg/h.pyc\n"));
  CHECK(filter.Touches("r", "diff --git a/pkg/h.py b/pkg/moved.py\nrename from pkg/h.py\nrename to pkg/moved.py\n"));
  CHECK(HeldOutFilter().empty());
  CHECK(HeldOutFilter(Files{{"r", {}}}).empty());
}

}  // namespace
}  // namespace seragen::exporter
