// The sera format against rows written by hand from the rules of SERA's
// post-processing (hermes tool calls, keep_only_think, train keys): every
// expected string below was composed from those rules, not produced by code.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "export/call_fixture.h"
#include "seragen/base/file_util.h"
#include "seragen/export/record.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::exporter {
namespace {

using json = nlohmann::ordered_json;

const auto& SeraCall = fixture::Call;

llm::Message Turn(std::string reasoning, std::string text, llm::ToolCall call) {
  return {llm::Role::kAssistant, std::move(text), std::move(reasoning), {std::move(call)}, {}, {}};
}

llm::Message ToolResult(std::string content, std::string id) {
  return {llm::Role::kTool, std::move(content), {}, {}, std::move(id), {}};
}

// Reasoning with text beside it; visible text only (reasoning blank);
// nothing at all; non-ASCII, control characters and key order in arguments.
agent::Trajectory Conversation() {
  agent::Trajectory t;
  t.history = {
      {llm::Role::kSystem, "You are an engineer.", {}, {}, {}, {}},
      {llm::Role::kUser, "Résumé totals are wrong.", {}, {}, {}, {}},
      Turn("  I should list the files.\n", "Let me look.", SeraCall("c1", "bash", R"({"command":"ls /repo"})")),
      ToolResult("a.py\nb.py", "c1"),
      Turn(" \n", "\n Fix the naïve check.\u00a0",
           SeraCall("c2", "bash", "{\"path\":\"/repo/é.py\",\"command\":\"printf 'x\\t😀\\n\\u007f' > /tmp/y\"}")),
      ToolResult("", "c2"),
      Turn("", "", SeraCall("c3", "submit", "{}")),
      ToolResult("diff --git a/a.py b/a.py", "c3"),
  };
  t.tools.push_back({"bash", "Run a command.",
                     R"({"type":"object","properties":{"command":{"type":"string"}},"required":["command"]})"});
  t.tools.push_back({"submit", "Hand in the change; café.", R"({"type":"object","properties":{}})"});
  return t;
}

constexpr const char* kQwenFraming =
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{{tools_json}}\n</tools>\n\n"
    "For each function call, return a json object with function name and arguments within <tool_call></tool_call> "
    "XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>";

json Row(const std::string& role, const std::string& content) {
  return {{"role", role}, {"content", content}, {"train", role == "assistant"}};
}

// SERA's row for Conversation(), by hand.
json ExpectedMessages() {
  std::string system =
      "You are an engineer.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
      "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
      "{\"type\": \"function\", \"function\": {\"name\": \"bash\", \"description\": \"Run a command.\", "
      "\"parameters\": {\"type\": \"object\", \"properties\": {\"command\": {\"type\": \"string\"}}, "
      "\"required\": [\"command\"]}}}\n"
      "{\"type\": \"function\", \"function\": {\"name\": \"submit\", \"description\": \"Hand in the change; café.\", "
      "\"parameters\": {\"type\": \"object\", \"properties\": {}}}}\n"
      "</tools>\n\nFor each function call, return a json object with function name and arguments within "
      "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
      "<args-json-object>}\n</tool_call>";
  return json::array({
      Row("system", system),
      Row("user", "Résumé totals are wrong."),
      Row("assistant",
          "<think>\nI should list the files.\n</think>\n\n<tool_call>\n"
          "{\"name\": \"bash\", \"arguments\": {\"command\": \"ls /repo\"}}\n</tool_call>"),
      Row("user", "<tool_response>\na.py\nb.py\n</tool_response>"),
      Row("assistant",
          "<think>\nFix the na\u00efve check.\n</think>\n\n<tool_call>\n"
          "{\"name\": \"bash\", \"arguments\": {\"path\": \"/repo/\\u00e9.py\", "
          "\"command\": \"printf 'x\\t\\ud83d\\ude00\\n\\u007f' > /tmp/y\"}}\n</tool_call>"),
      Row("user", "<tool_response>\n\n</tool_response>"),
      Row("assistant", "<think>\n\n</think>\n\n<tool_call>\n{\"name\": \"submit\", \"arguments\": {}}\n</tool_call>"),
      Row("user", "<tool_response>\ndiff --git a/a.py b/a.py\n</tool_response>"),
  });
}

ExportTemplates SeraTemplates() {
  ExportTemplates t;
  t.tool_response = "<tool_response>\n{{content}}\n</tool_response>";
  t.sera_tools = kQwenFraming;
  return t;
}

Result<std::string> BuildSera(const agent::Trajectory& t, const ExportTemplates& templates = SeraTemplates()) {
  ExportOptions o;
  o.format = Format::kSera;
  RecordMetadata md;
  md.task_id = "t1";
  return BuildRecord(t, md, o, templates);
}

}  // namespace

TEST_CASE("sera format: rows equal SERA's, written by hand from its post-processing rules", "[export]") {
  Result<std::string> line = BuildSera(Conversation());
  INFO(line.status().ToString());
  REQUIRE(line.ok());
  json rec = json::parse(*line);
  const json expected = ExpectedMessages();
  REQUIRE(rec["messages"].size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("message " << i);
    CHECK(rec["messages"][i].dump() == expected[i].dump());  // roles, key order, every byte of the text
  }
  CHECK_FALSE(rec.contains("tools"));  // the tool list is in the system turn
  CHECK(rec["metadata"]["format"] == "sera");
}

TEST_CASE("sera format: the shipped framing file is the Qwen hermes text, with source and licence", "[export]") {
  ExportTemplates t;
  REQUIRE(t.LoadSeraFraming(seragen::testing::SourcePath("prompts/") + kDefaultSeraFraming).ok());
  CHECK(t.sera_tools == kQwenFraming);
  testing::TempDir dir;
  REQUIRE(WriteFileAtomic(dir.Sub("no-licence.md"), "source: somewhere\n-----\ntext\n").ok());
  Status bad = t.LoadSeraFraming(dir.Sub("no-licence.md"));
  CHECK(bad.message().find("licence") != std::string::npos);
  REQUIRE(WriteFileAtomic(dir.Sub("no-separator.md"), "source: a\nlicence: b\ntext\n").ok());
  CHECK(t.LoadSeraFraming(dir.Sub("no-separator.md")).message().find("dashes") != std::string::npos);
}

// SERA checks every message for think tags (one block, rewritten with
// newlines, or the row is dropped) and splits each assistant turn at its first
// think block and first <tool_call>. Where that split would train text as part
// of the call, the sera format refuses the row instead.
TEST_CASE("sera format: think tags in any message decided as SERA's post-processing does", "[export]") {
  const json expected = ExpectedMessages();
  auto content = [](const Result<std::string>& line, std::size_t i) {
    return json::parse(*line)["messages"][i]["content"].get<std::string>();
  };
  agent::Trajectory t = Conversation();
  t.history[2].content = "ok </think> then";  // text beside reasoning is dropped, stray tag and all
  Result<std::string> kept = BuildSera(t);
  REQUIRE(kept.ok());
  CHECK(content(kept, 2) == expected[2]["content"].get<std::string>());

  t = Conversation();
  t.history[3].content = "a.py\n<think>  a note \n</think> tail";  // one block in an observation: rewritten
  Result<std::string> observed = BuildSera(t);
  REQUIRE(observed.ok());
  CHECK(content(observed, 3) == "<tool_response>\na.py\n<think>\na note\n</think> tail\n</tool_response>");

  t = Conversation();
  t.history[2].reasoning = " I <think> nest";  // the first </think> closes the block
  Result<std::string> nested = BuildSera(t);
  REQUIRE(nested.ok());
  CHECK(content(nested, 2).starts_with("<think>\nI <think> nest\n</think>\n\n<tool_call>\n"));

  for (const char* observation : {"a <think> never closed", "<think>a</think> and <think>b</think>"}) {
    INFO(observation);
    t = Conversation();
    t.history[5].content = observation;  // SERA drops the row
    Result<std::string> dropped = BuildSera(t);
    REQUIRE_FALSE(dropped.ok());
    CHECK(dropped.status().message().find("think") != std::string::npos);
  }
  CHECK(ParseFormat("sera") == Format::kSera);
  CHECK(FormatName(Format::kSera) == "sera");
}

// SERA would train the text from a <tool_call> written in the visible text
// (or after a stray </think> in the reasoning) as part of the call; refused.
TEST_CASE("sera format: <tool_call> text outside the call is refused, where SERA would train it as the call",
          "[export]") {
  for (auto [reasoning, text] : {std::pair<std::string, std::string>{"Look.", "see <tool_call>x</tool_call> here"},
                                 {"", "Calling <tool_call> now"},
                                 {"a </think> b <tool_call> c", ""}}) {
    INFO(reasoning << " | " << text);
    agent::Trajectory t = Conversation();
    t.history[2].reasoning = reasoning;
    t.history[2].content = text;
    Result<std::string> line = BuildSera(t);
    REQUIRE_FALSE(line.ok());
    CHECK(line.status().message().find("<tool_call>") != std::string::npos);
  }
  agent::Trajectory t = Conversation();
  t.history[2].reasoning = "I will call <tool_call> soon.";  // inside the think block: kept, as SERA
  CHECK(BuildSera(t).ok());
}

}  // namespace seragen::exporter
