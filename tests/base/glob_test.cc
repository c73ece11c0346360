#include "seragen/base/glob.h"

#include <catch2/catch.hpp>

#include <vector>

namespace seragen {

namespace {

// One pattern, the paths it matches and the paths it does not.
struct GlobCase {
  const char* pattern;
  std::vector<const char*> matches;
  std::vector<const char*> misses;
};

const GlobCase kCases[] = {
    // Basename patterns match anywhere.
    {"*.min.js", {"static/js/app.min.js"}, {}},
    {"*.py", {"a.py"}, {"a.pyc"}},
    {"test_*.py", {"pkg/tests/test_io.py"}, {}},
    {"?.c", {"src/x.c"}, {"src/xy.c"}},
    // Path patterns are anchored and * stops at slashes.
    {"src/*.py", {"src/a.py"}, {"src/sub/a.py", "lib/src/a.py"}},
    {"/src/*.py", {"src/a.py"}, {}},
    // Double star spans zero or more directories.
    {"vendor/**", {"vendor/a/b/c.go", "vendor/x"}, {"src/vendor.go"}},
    {"a/**/b", {"a/b", "a/x/y/b"}, {"a/x/y/c"}},
    {"**/tests/**", {"pkg/tests/unit/test_a.py", "tests/test_a.py"}, {}},
    {"**/*_test.go", {"cmd/x/main_test.go", "main_test.go"}, {}},
    // A trailing slash means a directory anywhere.
    {"node_modules/", {"web/node_modules/lib/index.js", "node_modules/x.js"}, {"src/node_modules.js"}},
    // Character classes; an unclosed bracket is literal.
    {"file[0-9].txt", {"file7.txt"}, {"fileA.txt"}},
    {"file[!0-9].txt", {"fileA.txt"}, {}},
    {"[ab]*", {"beta"}, {}},
    {"a[", {"a["}, {}},
};

}  // namespace

TEST_CASE("basename, anchored path, double-star, directory and class patterns", "[glob]") {
  for (const GlobCase& c : kCases) {
    INFO(c.pattern);
    for (const char* path : c.matches) CHECK(GlobMatch(c.pattern, path));
    for (const char* path : c.misses) CHECK_FALSE(GlobMatch(c.pattern, path));
  }
}

TEST_CASE("GlobMatchAny", "[glob]") {
  std::vector<std::string> pats{"vendor/**", "*.pb.go"};
  CHECK(GlobMatchAny(pats, "api/x.pb.go"));
  CHECK(GlobMatchAny(pats, "vendor/y/z.go"));
  CHECK_FALSE(GlobMatchAny(pats, "api/x.go"));
  CHECK_FALSE(GlobMatchAny({}, "a"));
}

}  // namespace seragen
