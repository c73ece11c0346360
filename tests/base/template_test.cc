#include "seragen/base/template.h"

#include <catch2/catch.hpp>

namespace seragen {

TEST_CASE("placeholders are filled verbatim", "[template]") {
  auto r = RenderTemplate("Fix {{function_name}} in {{ file_path }}; {{function_name}} again.",
                          {{"function_name", "parse"}, {"file_path", "a/b.py"}});
  REQUIRE(r.ok());
  CHECK(*r == "Fix parse in a/b.py; parse again.");
  // Values are not re-expanded.
  CHECK(RenderTemplate("{{x}}", {{"x", "{{y}}"}}).value() == "{{y}}");
}

TEST_CASE("missing values name the placeholder, file and line", "[template]") {
  auto r = RenderTemplate("line one\nsee {{missing}}", {}, "prompts/rollout1.md");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == "prompts/rollout1.md:2: no value for placeholder '{{missing}}'");
}

TEST_CASE("malformed placeholders are errors, escapes work", "[template]") {
  CHECK_FALSE(RenderTemplate("{{ bad name }}", {}).ok());
  CHECK_FALSE(RenderTemplate("open {{ never closed", {}).ok());
  CHECK(RenderTemplate("literal {{{{ braces", {}).value() == "literal {{ braces");
  CHECK(RenderTemplate("no placeholders } { here", {}).value() == "no placeholders } { here");
}

TEST_CASE("TemplatePlaceholders lists distinct names in order", "[template]") {
  CHECK(TemplatePlaceholders("{{a}} {{b}} {{a}} {{{{ {{c}}") == std::vector<std::string>{"a", "b", "c"});
}

}  // namespace seragen

namespace seragen {

TEST_CASE("sections keep their text when the value is set, inverted ones when it is empty", "[template]") {
  const char* t = "a{{#cmd}} run `{{cmd}}`{{/cmd}}{{^cmd}} no command{{/cmd}}.";
  CHECK(RenderTemplate(t, {{"cmd", "make test"}}).value() == "a run `make test`.");
  CHECK(RenderTemplate(t, {{"cmd", ""}}).value() == "a no command.");
  // Nested sections: kept only when every enclosing one is.
  const char* nested = "{{#a}}A{{#b}}B{{/b}}{{^b}}-{{/b}}{{/a}}";
  CHECK(RenderTemplate(nested, {{"a", "1"}, {"b", "1"}}).value() == "AB");
  CHECK(RenderTemplate(nested, {{"a", "1"}, {"b", ""}}).value() == "A-");
  CHECK(RenderTemplate(nested, {{"a", ""}, {"b", "1"}}).value() == "");
}

TEST_CASE("a section tag alone on its line takes the line with it", "[template]") {
  const char* t = "one\n  {{#cmd}}\nrun {{cmd}}\n{{/cmd}}\n{{^cmd}}\nno tests\n{{/cmd}}\ntwo\n";
  CHECK(RenderTemplate(t, {{"cmd", "pytest"}}).value() == "one\nrun pytest\ntwo\n");
  CHECK(RenderTemplate(t, {{"cmd", ""}}).value() == "one\nno tests\ntwo\n");
  // Inline tags leave the surrounding text alone.
  CHECK(RenderTemplate("x {{#c}}y{{/c}} z\n", {{"c", ""}}).value() == "x  z\n");
}

TEST_CASE("section errors name the file and line, unknown names fail even in left-out sections", "[template]") {
  auto unclosed = RenderTemplate("ok\n{{#cmd}} never closed", {{"cmd", "x"}}, "p.md");
  REQUIRE_FALSE(unclosed.ok());
  CHECK(unclosed.status().message() == "p.md:2: section '{{cmd}}' is not closed");
  auto crossed = RenderTemplate("{{#a}}{{#b}}{{/a}}{{/b}}", {{"a", "1"}, {"b", "1"}}, "p.md");
  REQUIRE_FALSE(crossed.ok());
  CHECK(crossed.status().message() == "p.md:1: '{{/a}}' where '{{/b}}' was expected");
  CHECK_FALSE(RenderTemplate("{{/a}}", {{"a", "1"}}).ok());
  auto unknown_section = RenderTemplate("{{#nope}}x{{/nope}}", {}, "p.md");
  REQUIRE_FALSE(unknown_section.ok());
  CHECK(unknown_section.status().message() == "p.md:1: no value for section '{{#nope}}'");
  auto hidden_typo = RenderTemplate("{{#cmd}}{{typo}}{{/cmd}}", {{"cmd", ""}}, "p.md");
  REQUIRE_FALSE(hidden_typo.ok());
  CHECK(hidden_typo.status().message() == "p.md:1: no value for placeholder '{{typo}}'");
  CHECK_FALSE(RenderTemplate("{{#}}x{{/}}", {}).ok());
}

TEST_CASE("ResolveTemplateSections keeps placeholders and escapes, section names are listed", "[template]") {
  auto lookup = [](std::string_view name) -> std::optional<bool> {
    if (name == "on") return true;
    if (name == "off" || name == "v") return false;
    return std::nullopt;
  };
  CHECK(ResolveTemplateSections("{{#on}}{{v}} {{{{{{/on}}{{#off}}gone{{/off}}", lookup).value() == "{{v}} {{{{");
  CHECK_FALSE(ResolveTemplateSections("{{w}}", lookup).ok());
  CHECK(TemplatePlaceholders("{{#a}}{{b}}{{/a}}{{^c}}{{/c}}") == std::vector<std::string>{"a", "b", "c"});
  CHECK(TemplateSectionNames("{{b}}{{#a}}{{/a}}{{^c}}{{/c}}{{#a}}{{/a}}") == std::vector<std::string>{"a", "c"});
}

}  // namespace seragen
