#include "seragen/base/glob.h"

#include <catch2/catch.hpp>

namespace seragen {

TEST_CASE("basename patterns match anywhere", "[glob]") {
  CHECK(GlobMatch("*.min.js", "static/js/app.min.js"));
  CHECK(GlobMatch("*.py", "a.py"));
  CHECK_FALSE(GlobMatch("*.py", "a.pyc"));
  CHECK(GlobMatch("test_*.py", "pkg/tests/test_io.py"));
  CHECK(GlobMatch("?.c", "src/x.c"));
  CHECK_FALSE(GlobMatch("?.c", "src/xy.c"));
}

TEST_CASE("path patterns are anchored and * stops at slashes", "[glob]") {
  CHECK(GlobMatch("src/*.py", "src/a.py"));
  CHECK_FALSE(GlobMatch("src/*.py", "src/sub/a.py"));
  CHECK_FALSE(GlobMatch("src/*.py", "lib/src/a.py"));
  CHECK(GlobMatch("/src/*.py", "src/a.py"));
}

TEST_CASE("double star spans zero or more directories", "[glob]") {
  CHECK(GlobMatch("vendor/**", "vendor/a/b/c.go"));
  CHECK(GlobMatch("vendor/**", "vendor/x"));
  CHECK_FALSE(GlobMatch("vendor/**", "src/vendor.go"));
  CHECK(GlobMatch("a/**/b", "a/b"));
  CHECK(GlobMatch("a/**/b", "a/x/y/b"));
  CHECK_FALSE(GlobMatch("a/**/b", "a/x/y/c"));
  CHECK(GlobMatch("**/tests/**", "pkg/tests/unit/test_a.py"));
  CHECK(GlobMatch("**/tests/**", "tests/test_a.py"));
  CHECK(GlobMatch("**/*_test.go", "cmd/x/main_test.go"));
  CHECK(GlobMatch("**/*_test.go", "main_test.go"));
}

TEST_CASE("trailing slash means a directory anywhere", "[glob]") {
  CHECK(GlobMatch("node_modules/", "web/node_modules/lib/index.js"));
  CHECK(GlobMatch("node_modules/", "node_modules/x.js"));
  CHECK_FALSE(GlobMatch("node_modules/", "src/node_modules.js"));
}

TEST_CASE("character classes", "[glob]") {
  CHECK(GlobMatch("file[0-9].txt", "file7.txt"));
  CHECK_FALSE(GlobMatch("file[0-9].txt", "fileA.txt"));
  CHECK(GlobMatch("file[!0-9].txt", "fileA.txt"));
  CHECK(GlobMatch("[ab]*", "beta"));
  CHECK(GlobMatch("a[", "a["));
}

TEST_CASE("GlobMatchAny", "[glob]") {
  std::vector<std::string> pats{"vendor/**", "*.pb.go"};
  CHECK(GlobMatchAny(pats, "api/x.pb.go"));
  CHECK(GlobMatchAny(pats, "vendor/y/z.go"));
  CHECK_FALSE(GlobMatchAny(pats, "api/x.go"));
  CHECK_FALSE(GlobMatchAny({}, "a"));
}

}  // namespace seragen
