#include "seragen/tools/tool_messages.h"

#include <catch2/catch.hpp>

#include "seragen/base/file_util.h"
#include "tools/tools_test_util.h"

namespace seragen::tools {
namespace {

TEST_CASE("the shipped message file loads and renders", "[tools][messages]") {
  auto m = ToolMessages::Load(test::SourcePath("prompts/tools/messages.yaml"));
  REQUIRE(m.ok());
  auto r = m->Render("bash_exit_code", {{"exit_code", "2"}});
  REQUIRE(r.ok());
  CHECK(*r == "[exit code 2]");
  CHECK(m->Render("no_such_key", {}).status().code() == StatusCode::kNotFound);
  CHECK(m->Render("bash_exit_code", {}).status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("message files with missing, unknown or mistyped entries are refused", "[tools][messages]") {
  auto text = ReadFile(test::SourcePath("prompts/tools/messages.yaml"));
  REQUIRE(text.ok());
  std::string original = *text;

  std::string missing = original;
  auto pos = missing.find("bash_no_output:");
  missing.insert(pos, "#");
  auto r1 = ToolMessages::Parse(missing, "m.yaml");
  REQUIRE_FALSE(r1.ok());
  CHECK(r1.status().message().find("missing message \"bash_no_output\"") != std::string::npos);

  auto r2 = ToolMessages::Parse(original + "\nextra_key: hi\n", "m.yaml");
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.status().message().find("unknown message key \"extra_key\"") != std::string::npos);

  std::string typo = original;
  pos = typo.find("[exit code {{exit_code}}]");
  typo.replace(pos, 25, "[exit code {{exitcode}}]");
  auto r3 = ToolMessages::Parse(typo, "m.yaml");
  REQUIRE_FALSE(r3.ok());
  CHECK(r3.status().message().find("{{exitcode}}") != std::string::npos);
  CHECK(r3.status().message().find("bash_exit_code") != std::string::npos);

  CHECK_FALSE(ToolMessages::Parse("- a\n- b\n", "m.yaml").ok());
}

}  // namespace
}  // namespace seragen::tools
