#include "seragen/verify/patch_lines.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace seragen::verify {

TEST_CASE("changed lines keep their sign and multiplicity", "[verify][patch_lines]") {
  ChangedLines lines =
      ParsePatchLines("diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,3 @@\n-x\n+x\n+x\n y\n");
  CHECK(lines.size() == 3);
  CHECK(lines.Count("-x") == 1);
  CHECK(lines.Count("+x") == 2);
  CHECK(lines.Count(" y") == 0);
  CHECK(lines.Count("x") == 0);
  CHECK(lines.counts().size() == 2);
}

TEST_CASE("text that is not a patch has no changed lines", "[verify][patch_lines]") {
  CHECK(ParsePatchLines("").empty());
  CHECK(ParsePatchLines("\n\n\r\n").empty());
  CHECK(ParsePatchLines("just some words\n- a bullet before any file header\n").empty());
}

namespace {

// A patch, how many changed lines it has, lines that count once and lines
// that do not count.
struct PatchCase {
  const char* what;
  std::string patch;
  std::size_t size;
  std::vector<std::string> once;
  std::vector<std::string> never;
};

const PatchCase kCases[] = {
    {"a diff line ends an over-counted hunk (the first claims 5 new lines, the next file starts after 1)",
     "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -0,0 +1,5 @@\n+one\n"
     "diff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-two\n+three\n",
     3,
     {"+one", "-two", "+three"},
     {}},
    {"plain diff -u output with several files and timestamps",
     "--- a/x.txt\t2026-01-01 00:00:00 +0000\n+++ b/x.txt\t2026-01-02 00:00:00 +0000\n@@ -1 +1 @@\n-a\n+b\n"
     "--- a/y.txt\t2026-01-01 00:00:00 +0000\n+++ b/y.txt\t2026-01-02 00:00:00 +0000\n@@ -1 +1 @@\n-c\n+d\n",
     4,
     {},
     {"--- a/y.txt\t2026-01-01 00:00:00 +0000"}},
    // Without valid counts there is no hunk: "--- c" looks like a file header.
    {"a malformed @@ line is a header, the lines after it count leniently",
     "--- a/x\n+++ b/x\n@@ garbage @@\n-a\n+b\n--- c\n",
     2,
     {"-a", "+b"},
     {}},
    // "-diff ..." starts with '-', not "diff ": it is content.
    {"content lines that look like headers count inside a hunk",
     "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n--- removed dashes\n+++ added pluses\n-diff is a word\n+@@ not a hunk @@\n \n",
     4,
     {"--- removed dashes", "+++ added pluses", "-diff is a word", "+@@ not a hunk @@"},
     {}},
    {"a second mail in an mbox starts a new preamble",
     "From 1111 Mon Sep 17 00:00:00 2001\nSubject: [PATCH 1/2] a\n\n- bullet one\n---\n"
     "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n-- \n2.39.2\n\n"
     "From 2222 Mon Sep 17 00:00:00 2001\nSubject: [PATCH 2/2] b\n\n- bullet two\n+ plus bullet\n---\n"
     "diff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-c\n+d\n-- \n2.39.2\n",
     4,
     {},
     {"- bullet two", "+ plus bullet"}},
    {"CR handling: one trailing CR is a terminator, inner CRs are content",
     "--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\rb\r\n+c\r\r\n",
     2,
     {"-a\rb", "+c\r"},
     {}},
    {"whitespace-only lines after the sign are blank, other whitespace is content",
     "--- a/x\n+++ b/x\n@@ -0,0 +1,6 @@\n+\n+ \n+\t\n+ \t \n+  x\n+x  \n",
     2,
     {"+  x", "+x  "},
     {}},
};

}  // namespace

TEST_CASE("hunk bounds, plain and mbox patches, header-like content, CRs and blank lines", "[verify][patch_lines]") {
  for (const PatchCase& c : kCases) {
    INFO(c.what);
    ChangedLines lines = ParsePatchLines(c.patch);
    CHECK(lines.size() == c.size);
    for (const std::string& line : c.once) CHECK(lines.Count(line) == 1);
    for (const std::string& line : c.never) CHECK(lines.Count(line) == 0);
  }
}

}  // namespace seragen::verify
