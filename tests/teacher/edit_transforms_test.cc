#include "teacher/edit_transforms.h"

#include <catch2/catch.hpp>

#include <cstdio>

using namespace seragen::teacher;

namespace {

FileKnowledge Know(const std::string& text) {
  FileKnowledge f;
  std::string numbered;
  int n = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      if (start == text.size()) break;
      end = text.size();
    }
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%6d\t", ++n);
    numbered += prefix + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  REQUIRE(ReadNumberedView("Here is the file:\n" + numbered + "[end of file]\n", &f) == n);
  return f;
}

std::string Apply(const std::string& text, const SourceEdit& e) {
  std::size_t pos = text.find(e.old_str);
  REQUIRE(pos != std::string::npos);
  REQUIRE(text.find(e.old_str, pos + 1) == std::string::npos);
  std::string out = text;
  out.replace(pos, e.old_str.size(), e.new_str);
  return out;
}

const char* kPy =
    "import os\n"
    "\n"
    "def load(path, mode=None):\n"
    "    \"\"\"Load a file.\n"
    "\n"
    "    Longer description.\n"
    "    \"\"\"\n"
    "    if len(path) > 255:\n"
    "        raise ValueError(\"path too long\")\n"
    "    return open(path, mode or 'r')\n"
    "\n"
    "\n"
    "class Store:\n"
    "    def load(self, names):\n"
    "        return [n for n in names]\n";

}  // namespace

TEST_CASE("ReadNumberedView keeps tabs and ignores non-numbered lines") {
  FileKnowledge f;
  CHECK(ReadNumberedView("header\n     1\tdef f():\n     2\t\treturn 1\t# tab\nnote 3\n    10\tx\n", &f) == 3);
  REQUIRE(f.Line(2) != nullptr);
  CHECK(*f.Line(2) == "\treturn 1\t# tab");
  CHECK(f.Line(3) == nullptr);
  CHECK(f.LastLine() == 10);
  CHECK(f.CountOccurrences("return 1") == 1);
}

TEST_CASE("Python None guard goes after the docstring and keeps the file plausible") {
  FileKnowledge f = Know(kPy);
  auto edit = MakeEdit(f, "load", "pkg/io.py", {EditKind::kGuardNone});
  REQUIRE(edit);
  CHECK(edit->kind == EditKind::kGuardNone);
  CHECK(edit->subject == "path");  // `mode` has a default, so it is not guarded
  std::string after = Apply(kPy, *edit);
  CHECK(after.find("    \"\"\"\n    if path is None:\n        raise ValueError(") != std::string::npos);
  CHECK(after.find("    if len(path) > 255:") != std::string::npos);
  CHECK(f.CountOccurrences(edit->old_str) == 1);
}

TEST_CASE("Boundary and error-message edits change one line of the right function") {
  FileKnowledge f = Know(kPy);
  auto boundary = MakeEdit(f, "load", "pkg/io.py", {EditKind::kBoundary});
  REQUIRE(boundary);
  CHECK(Apply(kPy, *boundary).find("    if len(path) >= 255:") != std::string::npos);
  auto message = MakeEdit(f, "load", "pkg/io.py", {EditKind::kErrorMessage});
  REQUIRE(message);
  CHECK(Apply(kPy, *message).find("raise ValueError(f\"path too long (path={path!r})\")") != std::string::npos);
}

TEST_CASE("Edits extend old_str upwards until it is unique") {
  const std::string text = "def a(x):\n    return x\n\n\ndef b(x):\n    return x\n";
  FileKnowledge f = Know(text);
  auto edit = MakeEdit(f, "b", "m.py", {EditKind::kGuardNone});
  REQUIRE(edit);
  CHECK(edit->old_str == "def b(x):\n    return x");
  CHECK(Apply(text, *edit) ==
        "def a(x):\n    return x\n\n\ndef b(x):\n    if x is None:\n        raise ValueError(\"b() got None for "
        "'x'\")\n    return x\n");
}

TEST_CASE("Kinds fall back in order, methods and empty checks on collection-like names") {
  FileKnowledge f = Know(kPy);
  // The first `def load` is the module function; the fallback list is tried in order.
  auto edit = MakeEdit(f, "load", "pkg/io.py", {EditKind::kEmptyCheck, EditKind::kCommentGuard});
  REQUIRE(edit);
  CHECK(edit->kind == EditKind::kEmptyCheck);  // "path" looks like a collection/text
  const std::string method_only = "class S:\n    def keep(self, names):\n        return list(names)\n";
  auto m = MakeEdit(Know(method_only), "keep", "s.py", {EditKind::kBoundary, EditKind::kEmptyCheck});
  REQUIRE(m);
  CHECK(Apply(method_only, *m) ==
        "class S:\n    def keep(self, names):\n        if not names:\n            raise ValueError(\"keep() needs a "
        "non-empty 'names'\")\n        return list(names)\n");
  CHECK_FALSE(MakeEdit(Know(method_only), "missing", "s.py", AllEditKinds()));
}

TEST_CASE("Multi-line signatures, tabs and one-line functions") {
  const std::string multi = "def f(\n\ta,\n\tb=2,\n):\n\treturn a + b\n";
  auto e = MakeEdit(Know(multi), "f", "t.py", {EditKind::kGuardNone});
  REQUIRE(e);
  CHECK(Apply(multi, *e) ==
        "def f(\n\ta,\n\tb=2,\n):\n\tif a is None:\n\t\traise ValueError(\"f() got None for 'a'\")\n\treturn a + b\n");
  CHECK_FALSE(MakeEdit(Know("def g(x): return x\n"), "g", "t.py", AllEditKinds()));
}

TEST_CASE("Other languages: JS guard, Java null check, comment fallback elsewhere") {
  const std::string js = "export function total(items) {\n  let s = 0;\n  return s;\n}\n";
  auto e = MakeEdit(Know(js), "total", "src/a.js", {EditKind::kGuardNone, EditKind::kCommentGuard});
  REQUIRE(e);
  CHECK(Apply(js, *e).find("  if (items === undefined || items === null) {\n    throw new TypeError(") !=
        std::string::npos);

  const std::string java = "class A {\n    public int size(String name) {\n        return name.length();\n    }\n}\n";
  auto j = MakeEdit(Know(java), "size", "A.java", {EditKind::kGuardNone});
  REQUIRE(j);
  CHECK(Apply(java, *j).find("        if (name == null) {") != std::string::npos);

  const std::string go = "func Sum(xs []int) int {\n\ttotal := 0\n\treturn total\n}\n";
  auto g = MakeEdit(Know(go), "Sum", "sum.go", AllEditKinds());
  REQUIRE(g);
  CHECK(g->kind == EditKind::kCommentGuard);
  CHECK(Apply(go, *g).find("func Sum(xs []int) int {\n\t// 'xs' comes straight from the caller") != std::string::npos);
}

TEST_CASE("LocateFunction and FirstFunctionName") {
  FileKnowledge f = Know(kPy);
  auto span = LocateFunction(f, "load", "pkg/io.py");
  REQUIRE(span);
  CHECK(span->first_line == 3);
  CHECK(span->last_line == 10);
  CHECK(FirstFunctionName(f, "pkg/io.py") == std::optional<std::string>("load"));
  CHECK_FALSE(FirstFunctionName(Know("x = 1\n"), "a.py"));
}
