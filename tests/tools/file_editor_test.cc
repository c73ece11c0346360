#include "seragen/tools/file_editor.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include "testing/temp_dir.h"
#include "tools/tools_test_util.h"

namespace seragen::tools {
namespace {

using test::Expected;

struct EditorFixture {
  explicit EditorFixture(ToolOptions options = {})
      : editor(WorkspacePaths(dir.Sub("copy"), "/repo"), &test::Messages(), options) {
    ::mkdir(dir.Sub("copy").c_str(), 0755);
  }
  void Write(const std::string& rel, const std::string& content) { dir.Write("copy/" + rel, content); }
  std::string Read(const std::string& rel) { return dir.Read("copy/" + rel); }
  std::string View(const std::string& path, std::optional<std::vector<long long>> range = std::nullopt) {
    auto r = editor.View(path, range);
    REQUIRE(r.ok());
    return *r;
  }
  testing::TempDir dir;
  FileEditor editor;
};

// "<prefix>1\n" ... "<prefix><count>\n".
std::string NumberedLines(const std::string& prefix, int count) {
  std::string text;
  for (int i = 1; i <= count; ++i) text += prefix + std::to_string(i) + "\n";
  return text;
}

// The note that ends a view clipped after line `last` of `total`.
std::string ClippedNote(int last, int total, int max_chars, int max_lines) {
  return Expected("view_clipped", {{"last_line", std::to_string(last)},
                                   {"total", std::to_string(total)},
                                   {"next_line", std::to_string(last + 1)},
                                   {"max_chars", std::to_string(max_chars)},
                                   {"max_lines", std::to_string(max_lines)}});
}

// Views long.txt (50 lines "<prefix>N"; `range` when given) with `options`
// and checks that the view ends at line `last` with the clip note.
void ExpectClippedAt(const ToolOptions& options, const std::string& prefix, std::optional<std::vector<long long>> range,
                     int last) {
  EditorFixture f(options);
  f.Write("long.txt", NumberedLines(prefix, 50));
  auto out = f.View("long.txt", range);
  auto numbered = [](int line) {
    std::string n = std::to_string(line);
    return std::string(6 - n.size(), ' ') + n + "\t";
  };
  CHECK(out.find(numbered(last) + prefix + std::to_string(last)) != std::string::npos);
  CHECK(out.find(numbered(last + 1)) == std::string::npos);
  CHECK(out.find(ClippedNote(last, 50, static_cast<int>(options.view_max_chars),
                             static_cast<int>(options.view_max_lines))) != std::string::npos);
}

// ---------------------------------------------------------------- view

TEST_CASE("view numbers lines and keeps tabs", "[tools][editor][view]") {
  EditorFixture f;
  f.Write("a.py", "def f():\n\treturn 1\n");
  CHECK(f.View("/repo/a.py") ==
        Expected("view_file",
                 {{"path", "/repo/a.py"}, {"total", "2"}, {"content", "     1\tdef f():\n     2\t\treturn 1"}}));
}

TEST_CASE("view shows CRLF files without the carriage returns", "[tools][editor][view]") {
  EditorFixture f;
  f.Write("w.txt", "one\r\ntwo\r\n");
  auto out = f.View("w.txt");
  CHECK(out.find("     1\tone\n     2\ttwo") != std::string::npos);
  CHECK(out.find('\r') == std::string::npos);
}

TEST_CASE("view ranges, including the ends of the file", "[tools][editor][view]") {
  EditorFixture f;
  f.Write("n.txt", "l1\nl2\nl3\nl4\nl5");  // no final newline
  CHECK(f.View("n.txt", std::vector<long long>{2, 3}) ==
        Expected("view_file_range", {{"path", "/repo/n.txt"},
                                     {"first", "2"},
                                     {"last", "3"},
                                     {"total", "5"},
                                     {"content", "     2\tl2\n     3\tl3"}}));
  CHECK(f.View("n.txt", std::vector<long long>{5, 5}).find("     5\tl5") != std::string::npos);
  CHECK(f.View("n.txt", std::vector<long long>{4, -1}).find("lines 4 to 5 of 5") != std::string::npos);
  auto clamped = f.View("n.txt", std::vector<long long>{4, 99});
  CHECK(clamped.find("     5\tl5") != std::string::npos);
  CHECK(clamped.find(Expected("view_range_clamped", {{"total", "5"}})) != std::string::npos);
  CHECK(f.View("n.txt", std::vector<long long>{6, 7}) ==
        Expected("view_range_out_of_bounds", {{"range", "[6, 7]"}, {"total", "5"}}));
  CHECK(f.View("n.txt", std::vector<long long>{0, 2}) ==
        Expected("view_range_out_of_bounds", {{"range", "[0, 2]"}, {"total", "5"}}));
  CHECK(f.View("n.txt", std::vector<long long>{3, 2}) ==
        Expected("view_range_out_of_bounds", {{"range", "[3, 2]"}, {"total", "5"}}));
  CHECK(f.View("n.txt", std::vector<long long>{3}) == Expected("view_range_malformed", {{"range", "[3]"}}));
}

TEST_CASE("long views are clipped at a line with a note", "[tools][editor][view]") {
  const ToolOptions options{.view_max_chars = 100};
  // Each numbered line is 22-23 characters: 4 lines fit in 100.
  ExpectClippedAt(options, "line number ", std::nullopt, 4);
}

TEST_CASE("the view cap counts characters, not bytes", "[tools][editor][view]") {
  const ToolOptions options{.view_max_chars = 100};
  // "     N<tab>ééééé N": 14 characters (19 bytes); 6 lines and their newlines
  // are 89 characters (a byte count would stop after 5).
  ExpectClippedAt(options, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 ", std::nullopt, 6);
}

TEST_CASE("views are clipped at tools.view_max_lines lines, ranges included", "[tools][editor][view]") {
  const ToolOptions options{.view_max_lines = 3};
  ExpectClippedAt(options, "l", std::nullopt, 3);
  ExpectClippedAt(options, "l", std::vector<long long>{10, -1}, 12);
}

TEST_CASE("view repairs invalid UTF-8 and says so, binary and empty files", "[tools][editor][view]") {
  EditorFixture f;
  f.Write("bad.txt", "ok\nbad \xff\xfe here\n");
  auto out = f.View("bad.txt");
  CHECK(out.find("bad \xEF\xBF\xBD\xEF\xBF\xBD here") != std::string::npos);
  CHECK(out.find(Expected("view_invalid_utf8", {})) != std::string::npos);
  f.Write("bin.dat", std::string("\x7f"
                                 "ELF\0\0\x01",
                                 7));
  CHECK(f.View("bin.dat") == Expected("view_binary", {{"path", "/repo/bin.dat"}, {"size", "7"}}));
  f.Write("empty.txt", "");
  CHECK(f.View("empty.txt") == Expected("view_empty_file", {{"path", "/repo/empty.txt"}}));
}

TEST_CASE("view lists directories two levels deep without hidden entries", "[tools][editor][view]") {
  EditorFixture f;
  for (const char* file :
       {"README.md", "pkg/__init__.py", "pkg/sub/deep/too_deep.py", "pkg/sub/mod.py", ".git/HEAD", "pkg/.hidden"}) {
    f.Write(file, "x");
  }
  CHECK(
      f.View("/repo") ==
      Expected("view_directory",
               {{"path", "/repo"}, {"listing", "/repo/README.md\n/repo/pkg/\n/repo/pkg/__init__.py\n/repo/pkg/sub/"}}));
  CHECK(f.View("/repo/pkg/sub").find("/repo/pkg/sub/deep/too_deep.py") != std::string::npos);
  CHECK(f.View("/repo/pkg", std::vector<long long>{1, 2}) ==
        Expected("view_range_on_directory", {{"path", "/repo/pkg"}}));
}

TEST_CASE("directory listings are clipped with a note", "[tools][editor][view]") {
  EditorFixture f(ToolOptions{.directory_max_entries = 3});
  for (int i = 0; i < 5; ++i) f.Write("f" + std::to_string(i), "");
  auto out = f.View("/repo");
  CHECK(out.find("/repo/f2") != std::string::npos);
  CHECK(out.find("/repo/f3") == std::string::npos);
  CHECK(out.find(Expected("view_directory_clipped", {{"shown", "3"}, {"total", "5"}})) != std::string::npos);
}

// ---------------------------------------------------------------- paths

TEST_CASE("every command refuses paths outside the copy", "[tools][editor][paths]") {
  EditorFixture f;
  f.dir.Write("outside.txt", "host file\n");
  REQUIRE(::symlink(f.dir.Sub("outside.txt").c_str(), f.dir.Sub("copy/link.txt").c_str()) == 0);
  REQUIRE(::symlink(f.dir.path().c_str(), f.dir.Sub("copy/up").c_str()) == 0);
  const std::string outside_abs = f.dir.Sub("outside.txt");
  for (const std::string& path :
       {std::string("/etc/passwd"), std::string("../outside.txt"), std::string("/repo/../outside.txt"),
        std::string("/repo/link.txt"), std::string("/repo/up/outside.txt"), outside_abs}) {
    INFO(path);
    const std::string refusal = Expected("path_outside", {{"path", path}, {"root", "/repo"}});
    CHECK(f.View(path) == refusal);
    CHECK(*f.editor.Create(path, std::string("x")) == refusal);
    CHECK(*f.editor.StrReplace(path, std::string("host"), std::string("pwned")) == refusal);
    CHECK(*f.editor.Insert(path, 0, std::string("x")) == refusal);
    CHECK(*f.editor.UndoEdit(path) == refusal);
  }
  CHECK(f.dir.Read("outside.txt") == "host file\n");
  struct stat st;
  CHECK(::lstat(f.dir.Sub("copy/up/outside.txt").c_str(), &st) == 0);  // still the host's file
  CHECK(f.View("") == Expected("path_empty", {{"root", "/repo"}}));
  CHECK(f.View("/repo/nope.py") == Expected("path_not_found", {{"path", "/repo/nope.py"}}));
}

TEST_CASE("a NUL in a path is named as such, huge paths are echoed bounded", "[tools][editor][paths]") {
  EditorFixture f;
  const std::string nul_path("/repo/a\0b.py", 12);
  CHECK(f.View(nul_path) == Expected("path_nul", {{"root", "/repo"}}));
  CHECK(*f.editor.Create(nul_path, std::string("x")) == Expected("path_nul", {{"root", "/repo"}}));
  const std::string huge = "/elsewhere/" + std::string(1 << 20, 'p');
  std::string outside = f.View(huge);
  CHECK(outside.size() < 2048);
  CHECK(outside.find(std::string(400, 'p')) != std::string::npos);
  std::string missing = f.View("/repo/" + std::string(1 << 20, 'q'));
  CHECK(missing.size() < 2048);
}

TEST_CASE("symlink loops and failing file system calls get their own messages", "[tools][editor][paths]") {
  EditorFixture f;
  REQUIRE(::symlink("loop_b", f.dir.Sub("copy/loop_a").c_str()) == 0);
  REQUIRE(::symlink("loop_a", f.dir.Sub("copy/loop_b").c_str()) == 0);
  CHECK(f.View("/repo/loop_a") == Expected("path_too_many_links", {{"path", "/repo/loop_a"}}));
  const std::string long_name(300, 'n');  // longer than NAME_MAX
  auto out = f.editor.Create("/repo/" + long_name, std::string("x"));
  REQUIRE(out.ok());
  CHECK(*out ==
        Expected("io_error", {{"action", "create"}, {"path", "/repo/" + long_name}, {"error", "File name too long"}}));
}

// ---------------------------------------------------------------- create

TEST_CASE("create writes new files with parents and refuses existing ones", "[tools][editor][create]") {
  EditorFixture f;
  ::chown(f.dir.Sub("copy").c_str(), 21201, 21201);
  CHECK(*f.editor.Create("/repo/new/pkg/x.py", std::string("a\n\tb\n")) ==
        Expected("create_done", {{"path", "/repo/new/pkg/x.py"}, {"lines", "2"}}));
  CHECK(f.Read("new/pkg/x.py") == "a\n\tb\n");
  struct stat st;
  REQUIRE(::stat(f.dir.Sub("copy/new/pkg/x.py").c_str(), &st) == 0);
  CHECK(st.st_uid == 21201u);  // owned like the copy, so the sandbox can edit it
  REQUIRE(::stat(f.dir.Sub("copy/new/pkg").c_str(), &st) == 0);
  CHECK(st.st_uid == 21201u);
  CHECK(*f.editor.Create("/repo/new/pkg/x.py", std::string("other")) ==
        Expected("create_exists", {{"path", "/repo/new/pkg/x.py"}}));
  CHECK(*f.editor.Create("/repo/new", std::string("other")) == Expected("create_exists", {{"path", "/repo/new"}}));
  CHECK(f.Read("new/pkg/x.py") == "a\n\tb\n");
  CHECK(*f.editor.Create("/repo/y.py", std::nullopt) ==
        Expected("missing_argument", {{"command", "create"}, {"argument", "file_text"}}));
}

// ---------------------------------------------------------------- str_replace

TEST_CASE("str_replace changes exactly one occurrence and keeps every other byte", "[tools][editor][replace]") {
  EditorFixture f;
  const std::string before = "import os\n\ndef f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n";
  f.Write("m.py", before);
  auto out = f.editor.StrReplace("/repo/m.py", std::string("\t\treturn 1\n"), std::string("\t\treturn 10\n"));
  REQUIRE(out.ok());
  CHECK(f.Read("m.py") == "import os\n\ndef f(x):\n\tif x:\n\t\treturn 10\n\treturn 2\n");
  CHECK(*out == Expected("edit_done", {{"path", "/repo/m.py"},
                                       {"first", "1"},
                                       {"last", "6"},
                                       {"snippet",
                                        "     1\timport os\n     2\t\n     3\tdef f(x):\n     4\t\tif x:\n"
                                        "     5\t\t\treturn 10\n     6\t\treturn 2"}}));
}

TEST_CASE("str_replace with zero or several matches changes nothing and says where", "[tools][editor][replace]") {
  EditorFixture f;
  const std::string text = "a = 1\nb = 2\na = 1\nc = 3\na = 1\n";
  f.Write("m.py", text);
  CHECK(*f.editor.StrReplace("m.py", std::string("a = 1"), std::string("a = 9")) ==
        Expected("str_replace_multiple", {{"path", "/repo/m.py"}, {"count", "3"}, {"lines", "1, 3, 5"}}));
  CHECK(*f.editor.StrReplace("m.py", std::string("z = 0"), std::string("y")) ==
        Expected("str_replace_no_match", {{"path", "/repo/m.py"}}));
  // Spaces instead of a tab do not match.
  f.Write("t.py", "\tx = 1\n");
  CHECK(*f.editor.StrReplace("t.py", std::string("    x = 1"), std::string("    x = 2")) ==
        Expected("str_replace_no_match", {{"path", "/repo/t.py"}}));
  CHECK(f.Read("m.py") == text);
  CHECK(f.Read("t.py") == "\tx = 1\n");
  // Overlapping occurrences count as several.
  f.Write("o.txt", "aaa\n");
  CHECK(f.editor.StrReplace("o.txt", std::string("aa"), std::string("b"))->find("2 times") != std::string::npos);
  CHECK(*f.editor.StrReplace("m.py", std::string(""), std::string("x")) == Expected("str_replace_empty_old", {}));
  CHECK(*f.editor.StrReplace("m.py", std::string("b = 2"), std::string("b = 2")) == Expected("str_replace_same", {}));
  CHECK(*f.editor.StrReplace("m.py", std::nullopt, std::string("x")) ==
        Expected("missing_argument", {{"command", "str_replace"}, {"argument", "old_str"}}));
  CHECK(f.editor.UndoDepth(f.dir.Sub("copy/m.py")) == 0);
}

TEST_CASE("str_replace keeps CRLF endings when the model sends LF", "[tools][editor][replace]") {
  EditorFixture f;
  f.Write("w.cs", "class A\r\n{\r\n    int x;\r\n}\r\n");
  auto out = f.editor.StrReplace("w.cs", std::string("{\n    int x;\n}"), std::string("{\n    int x;\n    int y;\n}"));
  REQUIRE(out.ok());
  CHECK(f.Read("w.cs") == "class A\r\n{\r\n    int x;\r\n    int y;\r\n}\r\n");
  CHECK(out->find('\r') == std::string::npos);
}

TEST_CASE("str_replace keeps invalid UTF-8 bytes outside the edit", "[tools][editor][replace]") {
  EditorFixture f;
  const std::string text = "# caf\xe9 latin-1 comment\nvalue = 1\n";
  f.Write("l1.py", text);
  REQUIRE(f.editor.StrReplace("l1.py", std::string("value = 1"), std::string("value = 2")).ok());
  CHECK(f.Read("l1.py") == "# caf\xe9 latin-1 comment\nvalue = 2\n");
}

TEST_CASE("str_replace with empty new_str deletes, a file without final newline stays so", "[tools][editor][replace]") {
  EditorFixture f;
  f.Write("d.txt", "keep\ndrop me\nend");
  REQUIRE(f.editor.StrReplace("d.txt", std::string("drop me\n"), std::nullopt).ok());
  CHECK(f.Read("d.txt") == "keep\nend");
}

TEST_CASE("editing refuses directories, binary and oversized files", "[tools][editor][replace]") {
  EditorFixture f(ToolOptions{.max_file_bytes = 64});
  f.Write("dir/x", "");
  f.Write("b.bin", std::string("a\0b", 3));
  f.Write("big.txt", std::string(100, 'x'));
  CHECK(*f.editor.StrReplace("dir", std::string("a"), std::string("b")) ==
        Expected("not_a_file", {{"path", "/repo/dir"}, {"command", "str_replace"}}));
  CHECK(*f.editor.StrReplace("b.bin", std::string("a"), std::string("b")) ==
        Expected("edit_binary", {{"path", "/repo/b.bin"}}));
  CHECK(*f.editor.Insert("big.txt", 0, std::string("a")) ==
        Expected("file_too_large", {{"path", "/repo/big.txt"}, {"size", "100"}, {"limit", "64"}}));
  CHECK(*f.editor.StrReplace("missing.py", std::string("a"), std::string("b")) ==
        Expected("path_not_found", {{"path", "/repo/missing.py"}}));
}

// ---------------------------------------------------------------- insert

TEST_CASE("insert after a line, at the top and at the end", "[tools][editor][insert]") {
  EditorFixture f;
  f.Write("i.txt", "one\ntwo\n");
  auto out = f.editor.Insert("i.txt", 1, std::string("one and a half"));
  REQUIRE(out.ok());
  CHECK(f.Read("i.txt") == "one\none and a half\ntwo\n");
  CHECK(*out == Expected("insert_done", {{"path", "/repo/i.txt"},
                                         {"count", "1"},
                                         {"line", "1"},
                                         {"first", "1"},
                                         {"last", "3"},
                                         {"snippet", "     1\tone\n     2\tone and a half\n     3\ttwo"}}));
  REQUIRE(f.editor.Insert("i.txt", 0, std::string("zero\n")).ok());
  REQUIRE(f.editor.Insert("i.txt", 4, std::string("three\nfour\n")).ok());
  CHECK(f.Read("i.txt") == "zero\none\none and a half\ntwo\nthree\nfour\n");
  CHECK(*f.editor.Insert("i.txt", 7, std::string("x")) ==
        Expected("insert_out_of_range", {{"line", "7"}, {"total", "6"}}));
  CHECK(*f.editor.Insert("i.txt", -1, std::string("x")) ==
        Expected("insert_out_of_range", {{"line", "-1"}, {"total", "6"}}));
  CHECK(*f.editor.Insert("i.txt", std::nullopt, std::string("x")) ==
        Expected("missing_argument", {{"command", "insert"}, {"argument", "insert_line"}}));
  CHECK(*f.editor.Insert("i.txt", 1, std::nullopt) ==
        Expected("missing_argument", {{"command", "insert"}, {"argument", "new_str"}}));
}

TEST_CASE("insert keeps CRLF, tabs and a missing final newline", "[tools][editor][insert]") {
  EditorFixture f;
  f.Write("c.txt", "a\r\nb\r\n");
  REQUIRE(f.editor.Insert("c.txt", 1, std::string("\tx\n\ty")).ok());
  CHECK(f.Read("c.txt") == "a\r\n\tx\r\n\ty\r\nb\r\n");
  f.Write("n.txt", "a\nb");
  REQUIRE(f.editor.Insert("n.txt", 2, std::string("c\n")).ok());
  CHECK(f.Read("n.txt") == "a\nb\nc");
  f.Write("e.txt", "");
  REQUIRE(f.editor.Insert("e.txt", 0, std::string("first")).ok());
  CHECK(f.Read("e.txt") == "first\n");
}

// ---------------------------------------------------------------- undo

TEST_CASE("undo_edit walks back through several edits", "[tools][editor][undo]") {
  EditorFixture f;
  f.Write("u.py", "v = 0\n");
  REQUIRE(f.editor.StrReplace("u.py", std::string("v = 0"), std::string("v = 1")).ok());
  REQUIRE(f.editor.Insert("u.py", 1, std::string("w = 2")).ok());
  REQUIRE(f.editor.StrReplace("/repo/u.py", std::string("w = 2"), std::string("w = 3")).ok());
  CHECK(f.Read("u.py") == "v = 1\nw = 3\n");
  CHECK(*f.editor.UndoEdit("u.py") == Expected("undo_done", {{"path", "/repo/u.py"}, {"remaining", "2"}}));
  CHECK(f.Read("u.py") == "v = 1\nw = 2\n");
  CHECK(*f.editor.UndoEdit("/repo/u.py") == Expected("undo_done", {{"path", "/repo/u.py"}, {"remaining", "1"}}));
  CHECK(f.Read("u.py") == "v = 1\n");
  CHECK(f.editor.UndoEdit("u.py").ok());
  CHECK(f.Read("u.py") == "v = 0\n");
  CHECK(*f.editor.UndoEdit("u.py") == Expected("undo_nothing", {{"path", "/repo/u.py"}}));
  CHECK(f.Read("u.py") == "v = 0\n");
}

TEST_CASE("undo of a create removes the file and history is per file", "[tools][editor][undo]") {
  EditorFixture f;
  f.Write("keep.txt", "k\n");
  REQUIRE(f.editor.Create("/repo/made.txt", std::string("m\n")).ok());
  REQUIRE(f.editor.Insert("keep.txt", 1, std::string("k2")).ok());
  REQUIRE(f.editor.StrReplace("made.txt", std::string("m"), std::string("n")).ok());
  REQUIRE(f.editor.UndoEdit("made.txt").ok());
  CHECK(f.Read("made.txt") == "m\n");
  CHECK(*f.editor.UndoEdit("made.txt") == Expected("undo_removed", {{"path", "/repo/made.txt"}}));
  struct stat st;
  CHECK(::stat(f.dir.Sub("copy/made.txt").c_str(), &st) != 0);
  CHECK(f.Read("keep.txt") == "k\nk2\n");
  REQUIRE(f.editor.UndoEdit("keep.txt").ok());
  CHECK(f.Read("keep.txt") == "k\n");
}

TEST_CASE("undo history is bounded", "[tools][editor][undo]") {
  EditorFixture f(ToolOptions{.undo_depth = 2});
  f.Write("h.txt", "0\n");
  for (int i = 1; i <= 4; ++i) {
    REQUIRE(f.editor.StrReplace("h.txt", std::to_string(i - 1) + "\n", std::to_string(i) + "\n").ok());
  }
  CHECK(f.editor.UndoDepth(f.dir.Sub("copy/h.txt")) == 2);
  REQUIRE(f.editor.UndoEdit("h.txt").ok());
  REQUIRE(f.editor.UndoEdit("h.txt").ok());
  CHECK(f.Read("h.txt") == "2\n");
  CHECK(*f.editor.UndoEdit("h.txt") == Expected("undo_nothing", {{"path", "/repo/h.txt"}}));
}

TEST_CASE("undo history is bounded in bytes across files, oldest edits forgotten first", "[tools][editor][undo]") {
  EditorFixture f(ToolOptions{.undo_max_bytes = 250});
  const std::string body(100, 'b');
  for (const char* name : {"a.txt", "b.txt", "c.txt"}) f.Write(name, body + "\n");
  for (const char* name : {"a.txt", "b.txt", "c.txt"}) REQUIRE(f.editor.StrReplace(name, "b\n", "c\n").ok());
  // Three previous contents of 101 bytes do not fit in 250: a.txt's went first.
  CHECK(f.editor.UndoDepth(f.dir.Sub("copy/a.txt")) == 0);
  CHECK(f.editor.UndoDepth(f.dir.Sub("copy/b.txt")) == 1);
  CHECK(f.editor.UndoDepth(f.dir.Sub("copy/c.txt")) == 1);
  REQUIRE(f.editor.UndoEdit("c.txt").ok());
  CHECK(f.Read("c.txt") == body + "\n");
  // The undo freed its bytes: a new edit fits without forgetting b.txt's.
  REQUIRE(f.editor.StrReplace("a.txt", "c\n", "d\n").ok());
  CHECK(f.editor.UndoDepth(f.dir.Sub("copy/b.txt")) == 1);
  CHECK(f.editor.UndoDepth(f.dir.Sub("copy/a.txt")) == 1);
}

}  // namespace

// Issue 28, finding 6: edits returned the changed lines whole (4 MB per edit
// on a one-line file), past the character cap view keeps to.
TEST_CASE("edit snippets keep to the view cap on a 4 MB single-line file", "[tools][editor][r2-finding6]") {
  EditorFixture f;
  const std::size_t cap = ToolOptions{}.view_max_chars;
  f.Write("one.txt", "start " + std::string(4 * 1024 * 1024 - 100, 'x') + " end");
  auto replaced = f.editor.StrReplace("one.txt", std::string("start"), std::string("begin"));
  REQUIRE(replaced.ok());
  CHECK(replaced->size() < cap + 1000);
  CHECK(replaced->find("     1\tbegin xxx") != std::string::npos);
  CHECK(replaced->find(Expected("edit_snippet_clipped", {{"max_chars", std::to_string(cap)}})) != std::string::npos);
  auto inserted = f.editor.Insert("one.txt", 1, std::string("tail line\n"));
  REQUIRE(inserted.ok());
  CHECK(inserted->size() < cap + 1000);
  CHECK(f.Read("one.txt").substr(0, 5) == "begin");
  // Many short lines are held to the same cap.
  f.Write("many.txt", "a\n");
  std::string lines;
  for (int i = 0; i < 20000; ++i) lines += "line " + std::to_string(i) + "\n";
  auto many = f.editor.Insert("many.txt", 1, lines);
  REQUIRE(many.ok());
  CHECK(many->size() < cap + 1000);
}

TEST_CASE("short edit snippets are not marked as clipped", "[tools][editor]") {
  EditorFixture f;
  f.Write("s.txt", "alpha\nbeta\n");
  auto r = f.editor.StrReplace("s.txt", std::string("beta"), std::string("gamma"));
  REQUIRE(r.ok());
  CHECK(r->find("     2\tgamma") != std::string::npos);
  CHECK(r->find("[the changed lines are long") == std::string::npos);
}

}  // namespace seragen::tools
