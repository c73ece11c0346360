#include "seragen/tools/workspace_path.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include "testing/temp_dir.h"

namespace seragen::tools {
namespace {

struct Tree {
  Tree() : paths(dir.Sub("copy"), "/repo") {
    dir.Write("copy/pkg/mod.py", "x = 1\n");
    dir.Write("outside/secret.txt", "s");
  }
  testing::TempDir dir;
  WorkspacePaths paths;
};

TEST_CASE("absolute /repo paths and relative paths map onto the copy", "[tools][paths]") {
  Tree t;
  auto a = t.paths.Resolve("/repo/pkg/mod.py");
  REQUIRE(a.ok());
  CHECK(a->host == t.dir.Sub("copy/pkg/mod.py"));
  CHECK(a->visible == "/repo/pkg/mod.py");
  CHECK(a->exists);
  auto b = t.paths.Resolve("pkg/./mod.py");
  REQUIRE(b.ok());
  CHECK(b->host == a->host);
  auto root = t.paths.Resolve("/repo/");
  REQUIRE(root.ok());
  CHECK(root->host == t.dir.Sub("copy"));
  CHECK(root->visible == "/repo");
  auto inner_dots = t.paths.Resolve("/repo/pkg/../pkg/mod.py");
  REQUIRE(inner_dots.ok());
  CHECK(inner_dots->visible == "/repo/pkg/mod.py");
  // The host path of the copy itself is accepted too.
  auto host_form = t.paths.Resolve(t.dir.Sub("copy/pkg/mod.py"));
  REQUIRE(host_form.ok());
  CHECK(host_form->visible == "/repo/pkg/mod.py");
}

TEST_CASE("missing paths resolve with exists=false", "[tools][paths]") {
  Tree t;
  auto r = t.paths.Resolve("/repo/new/dir/file.py");
  REQUIRE(r.ok());
  CHECK_FALSE(r->exists);
  CHECK(r->host == t.dir.Sub("copy/new/dir/file.py"));
  auto under_file = t.paths.Resolve("/repo/pkg/mod.py/child");
  CHECK(under_file.status().code() == StatusCode::kNotFound);
}

TEST_CASE("escapes are refused: absolute elsewhere, .., prefixes, symlinks", "[tools][paths]") {
  Tree t;
  auto refused = [&](const std::string& path) {
    INFO(path);
    CHECK(t.paths.Resolve(path).status().code() == StatusCode::kPermissionDenied);
  };
  for (const char* path :
       {"/etc/passwd", "/repository/x", "/repo/../etc/passwd", "../outside/secret.txt", "pkg/../../outside"}) {
    refused(path);
  }
  CHECK(t.paths.Resolve("").status().code() == StatusCode::kInvalidArgument);

  REQUIRE(::symlink(t.dir.Sub("outside").c_str(), t.dir.Sub("copy/abs_link").c_str()) == 0);
  REQUIRE(::symlink("../outside", t.dir.Sub("copy/rel_link").c_str()) == 0);
  REQUIRE(::symlink("../../outside/secret.txt", t.dir.Sub("copy/pkg/file_link").c_str()) == 0);
  // The last two: leaving a missing subtree with .. does not skip the symlink check.
  for (const char* path :
       {"/repo/abs_link/secret.txt", "/repo/rel_link/secret.txt", "/repo/rel_link/new.txt", "/repo/pkg/file_link",
        "/repo/missing/../abs_link", "/repo/missing/deeper/../../rel_link/x"}) {
    refused(path);
  }
  auto back_inside = t.paths.Resolve("/repo/missing/../pkg/mod.py");
  REQUIRE(back_inside.ok());
  CHECK(back_inside->exists);
}

TEST_CASE("symlinks that stay inside are followed", "[tools][paths]") {
  Tree t;
  REQUIRE(::symlink("pkg", t.dir.Sub("copy/alias").c_str()) == 0);
  REQUIRE(::symlink("/repo/pkg/mod.py", t.dir.Sub("copy/abs_inside").c_str()) == 0);
  REQUIRE(::symlink("../pkg/mod.py", t.dir.Sub("copy/pkg/self").c_str()) == 0);
  auto a = t.paths.Resolve("/repo/alias/mod.py");
  REQUIRE(a.ok());
  CHECK(a->visible == "/repo/pkg/mod.py");
  auto b = t.paths.Resolve("abs_inside");
  REQUIRE(b.ok());
  CHECK(b->host == t.dir.Sub("copy/pkg/mod.py"));
  auto c = t.paths.Resolve("/repo/pkg/self");
  REQUIRE(c.ok());
  CHECK(c->visible == "/repo/pkg/mod.py");
}

TEST_CASE("symlink loops end with an error", "[tools][paths]") {
  Tree t;
  REQUIRE(::symlink("b", t.dir.Sub("copy/a").c_str()) == 0);
  REQUIRE(::symlink("a", t.dir.Sub("copy/b").c_str()) == 0);
  CHECK(t.paths.Resolve("/repo/a").status().code() == StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace seragen::tools
