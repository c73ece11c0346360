#include "seragen/tools/tool_spec.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "seragen/base/file_util.h"
#include "tools/tools_test_util.h"

namespace seragen::tools {
namespace {

TEST_CASE("the shipped tools file defines bash, editor and submit", "[tools][spec]") {
  auto specs = LoadToolSpecs(test::SourcePath("configs/tools.yaml"));
  REQUIRE(specs.ok());
  REQUIRE(specs->tools.size() == 3);
  const ToolSpec* bash = specs->FindByRole(ToolRole::kBash);
  REQUIRE(bash);
  CHECK(bash->name == "bash");
  REQUIRE(bash->FindParam("command"));
  CHECK(bash->FindParam("command")->required);
  CHECK(bash->description.find("/repo") != std::string::npos);
  CHECK(bash->description.find("{{") == std::string::npos);

  const ToolSpec* editor = specs->FindByRole(ToolRole::kEditor);
  REQUIRE(editor);
  CHECK(editor->name == "editor");
  const ParamSpec* command = editor->FindParam("command");
  REQUIRE(command);
  CHECK(command->enum_values == std::vector<std::string>{"view", "create", "str_replace", "insert", "undo_edit"});
  CHECK(editor->FindParam("path")->required);
  CHECK_FALSE(editor->FindParam("file_text")->required);
  CHECK(editor->FindParam("insert_line")->type == ParamType::kInteger);
  CHECK(editor->FindParam("view_range")->type == ParamType::kIntegerArray);

  const ToolSpec* submit = specs->FindByName("submit");
  REQUIRE(submit);
  CHECK(submit->params.empty());
  CHECK(specs->NameList() == "bash, editor, submit");
}

TEST_CASE("the SWE-agent profile: tool names, editor schema and observation prefix", "[tools][spec]") {
  auto specs = LoadToolSpecs(test::SourcePath("configs/tools-sweagent.yaml"));
  REQUIRE(specs.ok());
  CHECK(specs->NameList() == "bash, str_replace_editor, submit");
  const ToolSpec* editor = specs->FindByName("str_replace_editor");
  REQUIRE(editor);
  CHECK(editor->role == ToolRole::kEditor);
  for (const char* p : {"command", "path", "file_text", "old_str", "new_str", "insert_line", "view_range"}) {
    CHECK(editor->FindParam(p));
  }
  CHECK(editor->params.size() == 7);
  CHECK(editor->FindParam("command")->enum_values ==
        std::vector<std::string>{"view", "create", "str_replace", "insert", "undo_edit"});
  CHECK(specs->observation_prefix == "OBSERVATION:\n");
  // The default profile has none; a prefix that is not a string or too long is refused.
  CHECK(LoadToolSpecs(test::SourcePath("configs/tools.yaml"))->observation_prefix.empty());
  std::string text = *ReadFile(test::SourcePath("configs/tools-sweagent.yaml"));
  std::string listed = text;
  const std::string line = "observation_prefix: \"OBSERVATION:\\n\"";
  REQUIRE(listed.find(line) != std::string::npos);
  listed.replace(listed.find(line), line.size(), "observation_prefix: [a, b]");
  CHECK_FALSE(ParseToolSpecs(listed, "x.yaml").ok());
  std::string long_prefix = text;
  long_prefix.replace(long_prefix.find(line) + line.find("OBSERVATION"), 12, std::string(300, 'O'));
  auto refused = ParseToolSpecs(long_prefix, "x.yaml");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().message().find("observation_prefix") != std::string::npos);
}

TEST_CASE("OpenAI tools JSON carries the schemas verbatim", "[tools][spec]") {
  auto specs = LoadToolSpecs(test::SourcePath("configs/tools.yaml"), "/workspace");
  REQUIRE(specs.ok());
  auto tools = nlohmann::json::parse(OpenAiToolsJson(*specs));
  REQUIRE(tools.size() == 3);
  CHECK(tools[0]["type"] == "function");
  CHECK(tools[0]["function"]["name"] == "bash");
  CHECK(tools[0]["function"]["parameters"]["required"] == nlohmann::json::array({"command"}));
  CHECK(tools[1]["function"]["parameters"]["properties"]["view_range"]["items"]["type"] == "integer");
  CHECK(tools[2]["function"]["parameters"]["type"] == "object");
  CHECK(tools[0]["function"]["description"].get<std::string>().find("/workspace") != std::string::npos);
}

TEST_CASE("tool schemas keep the order of the tools file", "[tools][spec]") {
  const char* yaml = R"(
tools:
  - role: bash
    name: sh
    description: run
    parameters:
      type: object
      properties:
        timeout: {type: integer, description: seconds}
        command: {type: string, description: what to run}
      required: [command]
  - {role: editor, name: ed, description: edit}
  - {role: submit, name: done, description: finish}
)";
  auto specs = ParseToolSpecs(yaml, "order.yaml");
  REQUIRE(specs.ok());
  CHECK(specs->tools[0].params[0].name == "timeout");
  CHECK(specs->tools[0].parameters_schema_json ==
        R"({"type":"object","properties":{"timeout":{"type":"integer","description":"seconds"},)"
        R"("command":{"type":"string","description":"what to run"}},"required":["command"]})");
  std::string openai = OpenAiToolsJson(*specs);
  CHECK(openai.find(R"("function":{"name":"sh","description":"run","parameters":{"type":"object")") !=
        std::string::npos);
  // The shipped editor lists command before path, as the file does.
  auto shipped = LoadToolSpecs(test::SourcePath("configs/tools.yaml"));
  REQUIRE(shipped.ok());
  const std::string& editor = shipped->FindByRole(ToolRole::kEditor)->parameters_schema_json;
  CHECK(editor.find("\"command\"") < editor.find("\"path\""));
  CHECK(editor.find("\"path\"") < editor.find("\"file_text\""));
}

const char* kMinimal = R"(
tools:
  - {role: bash, name: sh, description: run, parameters: {type: object, properties: {command: {type: string}}, required: [command]}}
  - {role: editor, name: ed, description: edit}
  - {role: submit, name: done, description: finish}
)";

TEST_CASE("tool names are configurable while roles stay", "[tools][spec]") {
  auto specs = ParseToolSpecs(kMinimal, "mini.yaml");
  REQUIRE(specs.ok());
  CHECK(specs->FindByRole(ToolRole::kBash)->name == "sh");
  CHECK(specs->FindByName("done")->role == ToolRole::kSubmit);
  CHECK(specs->FindByName("bash") == nullptr);
}

TEST_CASE("bad tool files are refused with the reason", "[tools][spec]") {
  auto message = [](const std::string& yaml) {
    auto r = ParseToolSpecs(yaml, "t.yaml");
    REQUIRE_FALSE(r.ok());
    return r.status().message();
  };
  CHECK(message("tools: [").find("invalid YAML") != std::string::npos);
  CHECK(message("other: 1").find("\"tools\" list") != std::string::npos);
  CHECK(message("tools:\n  - {role: bash, name: a, description: d}\n").find("no tool with role editor") !=
        std::string::npos);
  CHECK(message("tools:\n  - {role: shell, name: a, description: d}\n").find("role must be") != std::string::npos);
  CHECK(message("tools:\n  - {role: bash, name: a, description: d}\n  - {role: editor, name: a, description: d}\n")
            .find("duplicate tool name a") != std::string::npos);
  CHECK(message("tools:\n  - {role: bash, name: a, description: d, parameters: {type: object, properties: "
                "{x: {type: number}}}}\n")
            .find("unsupported type \"number\"") != std::string::npos);
  CHECK(message("tools:\n  - {role: bash, name: a, description: d, parameters: {type: object, properties: {}, "
                "required: [y]}}\n")
            .find("required parameter y is not defined") != std::string::npos);
  CHECK(message("tools:\n  - {role: bash, name: a}\n").find("missing description") != std::string::npos);
  CHECK(message("tools:\n  - {role: bash, name: '{{oops}}', description: d}\n").find("oops") != std::string::npos);
}

}  // namespace
}  // namespace seragen::tools
