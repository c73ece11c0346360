#include "teacher/template_matcher.h"

#include <catch2/catch.hpp>

#include "seragen/base/template.h"

using seragen::teacher::CollapseWhitespace;
using seragen::teacher::TemplateMatcher;

TEST_CASE("TemplateMatcher recovers placeholder values from a rendering") {
  const std::string tmpl =
      "Look at `{{function_name}}` in `{{file_path}}`.\n\nConcern: {{category_prompt}}\n\nRepo: {{repo_root}}";
  auto rendered = seragen::RenderTemplate(tmpl, {{"function_name", "parse"},
                                                 {"file_path", "a/b.py"},
                                                 {"category_prompt", "Edge\ncases."},
                                                 {"repo_root", "/repo"}});
  REQUIRE(rendered.ok());
  TemplateMatcher m(tmpl);
  auto values = m.Match(*rendered);
  REQUIRE(values);
  CHECK(values->at("function_name") == "parse");
  CHECK(values->at("file_path") == "a/b.py");
  CHECK(values->at("category_prompt") == "Edge\ncases.");
  CHECK(values->at("repo_root") == "/repo");
}

TEST_CASE("TemplateMatcher rejects text from another template") {
  TemplateMatcher m("Fix the issue:\n<issue>\n{{issue_text}}\n</issue>\nThen submit.");
  CHECK_FALSE(m.Match("Please judge this patch: <answer>yes</answer>"));
  CHECK_FALSE(m.Match("Fix the issue:\n<issue>\nno closing tag"));
}

TEST_CASE("TemplateMatcher tolerates whitespace changes and surrounding text") {
  TemplateMatcher m("Issue below.\n\n<issue>\n{{issue_text}}\n</issue>\n\nSolve it.\n");
  auto values = m.Match("prefix\r\nIssue   below.\n<issue>\nA `thing` breaks\n\nbadly\n</issue>\nSolve it.");
  REQUIRE(values);
  CHECK(values->at("issue_text") == "A `thing` breaks\n\nbadly");
}

TEST_CASE("TemplateMatcher: the final anchor is searched from the end, repeated placeholders must agree") {
  TemplateMatcher m("<issue>\n{{issue_text}}\n</issue>");
  auto values = m.Match("<issue>\nquoting </issue> inside\n</issue>");
  REQUIRE(values);
  CHECK(values->at("issue_text") == "quoting </issue> inside");

  TemplateMatcher twice("Function `{{f}}` here; again `{{f}}`.");
  CHECK(twice.Match("Function `a` here; again `a`."));
  CHECK_FALSE(twice.Match("Function `a` here; again `b`."));
}

TEST_CASE("TemplateMatcher: escaped braces, longest anchor and last closing tag") {
  TemplateMatcher m("Literal {{{{ braces then {{x}}. Answer between <answer> and </answer> tags.");
  auto values = m.Match("Literal {{ braces then 42. Answer between <answer> and </answer> tags.");
  REQUIRE(values);
  CHECK(values->at("x") == "42");
  CHECK(m.LastClosingTag() == "answer");
  CHECK(m.LongestAnchor() == ". Answer between <answer> and </answer> tags.");
  CHECK(TemplateMatcher("no tags {{a}}").LastClosingTag().empty());
  CHECK(CollapseWhitespace("  a \n\t b  ") == "a b");
}
