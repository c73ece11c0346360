#include "seragen/env/import_failure.h"

#include <catch2/catch.hpp>

namespace seragen::env {
namespace {

const std::vector<std::string> kFlask = {"flask"};

TEST_CASE("import failure: the repository's own python package is missing", "[env]") {
  CHECK(
      FailsToImportOwnCode("Traceback (most recent call last):\n  File \"/repo/repro_x.py\", line 1, in <module>\n"
                           "    import flask\nModuleNotFoundError: No module named 'flask'\n",
                           kFlask, "/repo"));
  CHECK(FailsToImportOwnCode("ModuleNotFoundError: No module named 'flask.json'", kFlask, "/repo"));
  // Another package, raised from the agent's own script: the agent's problem.
  CHECK_FALSE(
      FailsToImportOwnCode("  File \"/repo/repro_x.py\", line 1, in <module>\n"
                           "ModuleNotFoundError: No module named 'numpy'\n",
                           kFlask, "/repo"));
  CHECK_FALSE(FailsToImportOwnCode("ModuleNotFoundError: No module named 'flasky'", kFlask, "/repo"));
  CHECK_FALSE(FailsToImportOwnCode("ModuleNotFoundError: No module named 'flask'", {}, "/repo"));
  CHECK_FALSE(FailsToImportOwnCode("all 12 tests passed", kFlask, "/repo"));
}

TEST_CASE("import failure: a dependency missing inside the repository's own code", "[env]") {
  const std::string out =
      "Traceback (most recent call last):\n  File \"/repo/repro_x.py\", line 1, in <module>\n    import flask\n"
      "  File \"/repo/src/flask/__init__.py\", line 5, in <module>\n    from .app import Flask\n"
      "  File \"/repo/src/flask/app.py\", line 12, in <module>\n    from werkzeug.datastructures import Headers\n"
      "ModuleNotFoundError: No module named 'werkzeug'\n";
  CHECK(FailsToImportOwnCode(out, kFlask, "/repo"));
  // A single-module project at the root.
  CHECK(FailsToImportOwnCode(
      "  File \"/repo/app.py\", line 2, in <module>\nModuleNotFoundError: No module named 'yaml'", {"app"}, "/repo"));
  // The same frames under another mount point are not the working copy.
  CHECK_FALSE(FailsToImportOwnCode(out, kFlask, "/work"));
}

TEST_CASE("import failure: node and go name their own module", "[env]") {
  CHECK(
      FailsToImportOwnCode("Error: Cannot find module 'express'\nRequire stack:\n- /repo/x.js", {"express"}, "/repo"));
  CHECK(FailsToImportOwnCode("Error: Cannot find module \"express/lib/router\"", {"express"}, "/repo"));
  CHECK_FALSE(FailsToImportOwnCode("Error: Cannot find module 'left-pad'", {"express"}, "/repo"));
  const std::vector<std::string> go = {"github.com/acme/widget"};
  CHECK(FailsToImportOwnCode("x.go:3:2: no required module provides package github.com/acme/widget/internal/y; to add",
                             go, "/repo"));
  CHECK_FALSE(FailsToImportOwnCode("no required module provides package github.com/other/z", go, "/repo"));
}

}  // namespace
}  // namespace seragen::env
