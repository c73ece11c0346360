#include "teacher/repro_script.h"

#include <catch2/catch.hpp>

using namespace seragen::teacher;

namespace {

FileKnowledge Know(const std::string& text) {
  FileKnowledge f;
  int n = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    f.SetLine(++n, text.substr(start, end - start));
    start = end + 1;
  }
  return f;
}

const char* kModule =
    "import json\n"
    "\n"
    "\n"
    "def merge(text, defaults, strict=False, *extra, limit: int = 3, **kw):\n"
    "    data = json.loads(text)\n"
    "    return {**defaults, **data}\n"
    "\n"
    "\n"
    "class Stock:\n"
    "    def __init__(self):\n"
    "        self.levels = {}\n"
    "\n"
    "    @property\n"
    "    def total(self):\n"
    "        return 1\n"
    "\n"
    "    def reserve(self, sku, quantity):\n"
    "        return self.levels.get(sku, 0) - quantity\n"
    "\n"
    "\n"
    "def outer(items):\n"
    "    def inner(names):\n"
    "        return len(names)\n"
    "    return inner(items)\n";

}  // namespace

TEST_CASE("Python module names come from the file path, src layout included") {
  CHECK(PythonModuleName("pkg/mod.py") == "pkg.mod");
  CHECK(PythonModuleName("src/pkg/mod.py") == "pkg.mod");
  CHECK(PythonModuleName("src/pkg/__init__.py") == "pkg");
  CHECK(PythonModuleName("./tool.py") == "tool");
  CHECK(PythonModuleName("a/b/c/d.py") == "a.b.c.d");
  CHECK_FALSE(PythonModuleName("my-pkg/mod.py"));  // not importable by that name
  CHECK_FALSE(PythonModuleName("pkg/mod.js"));
  CHECK_FALSE(PythonModuleName("__init__.py"));
  CHECK_FALSE(PythonModuleName("pkg/2fast.py"));
  CHECK_FALSE(PythonModuleName(".py"));
}

TEST_CASE("Reproduction script names sit at the root and are recognised") {
  CHECK(ReproScriptName("Stock.reserve") == "repro_reserve.py");
  CHECK(ReproScriptName("pkg.mod.parse") == "repro_parse.py");
  CHECK(IsReproScriptPath("repro_parse.py"));
  CHECK_FALSE(IsReproScriptPath("pkg/repro_parse.py"));
  CHECK_FALSE(IsReproScriptPath("repro_.py"));
  CHECK_FALSE(IsReproScriptPath("reproduce.sh"));
}

TEST_CASE("A function is called with required arguments, the planned edit's parameter at its edge case") {
  FileKnowledge f = Know(kModule);
  SourceEdit guard;
  guard.kind = EditKind::kGuardNone;
  guard.subject = "text";
  auto t = PythonReproTarget(f, "merge", "src/app/core.py", guard);
  REQUIRE(t);
  CHECK(t->module == "app.core");
  CHECK(t->class_name.empty());
  CHECK(t->callable);
  using Args = std::vector<std::pair<std::string, std::string>>;
  CHECK(t->arguments == Args{{"text", "None"}, {"defaults", "{}"}});  // optional ones left to their defaults
  guard.kind = EditKind::kEmptyCheck;
  CHECK(PythonReproTarget(f, "merge", "src/app/core.py", guard)->arguments ==
        Args{{"text", "\"\""}, {"defaults", "{}"}});
  const std::string script = PythonReproScript(*t);
  CHECK(script ==
        "# Reproduction for `merge` (module app.core).\n"
        "import app.core\n"
        "from app.core import merge\n"
        "\n"
        "print(\"app.core loaded from\", app.core.__file__)\n"
        "try:\n"
        "    result = merge(text=None, defaults={})\n"
        "    print(\"merge(text=None, defaults={}) returned\", repr(result))\n"
        "except Exception as error:  # show the failure instead of stopping\n"
        "    print(\"merge(text=None, defaults={}) raised\", type(error).__name__ + \":\", error)\n");
}

TEST_CASE("A method is called on an instance of its class, a nested function is only imported") {
  FileKnowledge f = Know(kModule);
  auto method = PythonReproTarget(f, "reserve", "inventory/stock.py", std::nullopt);
  REQUIRE(method);
  CHECK(method->class_name == "Stock");
  CHECK(method->callable);
  const std::string script = PythonReproScript(*method);
  CHECK(script.find("from inventory.stock import Stock\n") != std::string::npos);
  CHECK(script.find("    result = Stock().reserve(sku=\"example\", quantity=3)\n") != std::string::npos);
  CHECK(script.find("print(\"Stock().reserve(sku=\\\"example\\\", quantity=3) returned\"") != std::string::npos);

  auto nested = PythonReproTarget(f, "inner", "pkg/m.py", std::nullopt);
  REQUIRE(nested);
  CHECK_FALSE(nested->callable);
  const std::string only_import = PythonReproScript(*nested);
  CHECK(only_import.find("import pkg.m\n") != std::string::npos);
  CHECK(only_import.find("from pkg.m import") == std::string::npos);

  CHECK_FALSE(PythonReproTarget(f, "missing", "pkg/m.py", std::nullopt));
  CHECK_FALSE(PythonReproTarget(f, "merge", "pkg/m.js", std::nullopt));
}
