#include "seragen/export/record.h"

#include "export/call_fixture.h"
#include "testing/source_paths.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

namespace seragen::exporter {
namespace {

using nlohmann::json;

using fixture::Call;

agent::Trajectory SampleTrajectory() {
  agent::Trajectory t;
  t.task_id = "abc123";
  t.model = "teacher-x";
  t.tools = {{"bash", "Run a command.",
              R"({"type":"object","properties":{"command":{"type":"string"}},"required":["command"]})"},
             {"submit", "Submit.", R"({"type":"object","properties":{}})"}};
  t.history = {
      {llm::Role::kSystem, "You are an engineer.", {}, {}, {}, {}},
      {llm::Role::kUser, "Fix the bug.", {}, {}, {}, {}},
      {llm::Role::kAssistant,
       "Let me look.",
       "the bug is near parse",
       {Call("c1", "bash", R"({"command":"ls /repo"})")},
       {},
       {}},
      {llm::Role::kTool, "a.py\nb.py", {}, {}, "c1", "bash"},
      {llm::Role::kAssistant, "", {}, {Call("c2", "submit", "{}")}, {}, {}},
      {llm::Role::kTool, "submitted", {}, {}, "c2", "submit"},
  };
  t.exit_status = agent::ExitStatus::kSubmitted;
  t.totals.prompt_tokens = 100;
  t.totals.completion_tokens = 20;
  return t;
}

ExportTemplates Templates() {
  return {"\nTOOLS {{tools_json}}", "\nXMLTOOLS {{tools_xml}}", "<tool_response>\n{{content}}\n</tool_response>"};
}

RecordMetadata Meta() {
  RecordMetadata md;
  md.task_id = "abc123";
  md.repo = "inventory";
  md.commit = "0123456789abcdef0123456789abcdef01234567";
  md.function_id = "inventory/stock.py::Stock.reserve";
  md.file = "inventory/stock.py";
  md.category_index = 13;
  md.category = "boundary conditions and edge cases";
  md.rollout = 2;
  md.scores = Scores{0.75, 0.5, 0.6, true, true, 0.5, "sera"};
  md.recipe_hash = "r";
  return md;
}

json Build(const ExportOptions& o, const agent::Trajectory& t = SampleTrajectory()) {
  auto r = BuildRecord(t, Meta(), o, Templates());
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->find('\n') == std::string::npos);  // one JSONL line
  return json::parse(*r);
}

}  // namespace

ExportOptions OpenAI() {
  ExportOptions o;
  o.format = Format::kOpenAI;
  return o;
}

TEST_CASE("openai format: structured tool calls and tool messages", "[export]") {
  json rec = Build(OpenAI());
  const json& m = rec["messages"];
  REQUIRE(m.size() == 5);  // the final submit observation is dropped
  CHECK(m[0]["role"] == "system");
  CHECK(m[2]["role"] == "assistant");
  CHECK(m[2]["tool_calls"][0]["function"]["name"] == "bash");
  CHECK(m[2]["tool_calls"][0]["function"]["arguments"] == R"({"command":"ls /repo"})");
  CHECK(m[2]["reasoning_content"] == "the bug is near parse");
  CHECK(m[3]["role"] == "tool");
  CHECK(m[3]["tool_call_id"] == "c1");
  CHECK(m[4]["tool_calls"][0]["function"]["name"] == "submit");
  CHECK(rec["tools"][0]["type"] == "function");
  CHECK(rec["tools"][0]["function"]["parameters"]["required"][0] == "command");
  const json& md = rec["metadata"];
  CHECK(md["task_id"] == "abc123");
  CHECK(md["start_function"] == "inventory/stock.py::Stock.reserve");
  CHECK(md["category_index"] == 13);
  CHECK(md["rollout"] == 2);
  CHECK(md["exit_status"] == "submitted");
  CHECK(md["model"] == "teacher-x");
  CHECK(md["soft_verification"]["recall"] == 0.75);
  CHECK(md["soft_verification"]["rule"] == "sera");
  CHECK(md["usage"]["prompt_tokens"] == 100);
  CHECK(md["scripted_teacher"] == false);
}

TEST_CASE("hf format is the default: argument strings, named tool messages, six keys per message", "[export]") {
  json rec = Build({});
  const json& m = rec["messages"];
  REQUIRE(m.size() == 5);
  auto ordered = nlohmann::ordered_json::parse(*BuildRecord(SampleTrajectory(), Meta(), {}, Templates()));
  for (const auto& msg : ordered["messages"]) {
    std::vector<std::string> keys;
    for (auto it = msg.begin(); it != msg.end(); ++it) keys.push_back(it.key());
    CHECK(keys ==
          std::vector<std::string>{"role", "content", "reasoning_content", "tool_calls", "tool_call_id", "name"});
  }
  CHECK(m[0]["tool_calls"].is_null());
  CHECK(m[0]["reasoning_content"].is_null());
  const json& call = m[2]["tool_calls"][0];
  CHECK(call["id"] == "c1");
  // One JSON-object string per call: a columnar loader sees one string column
  // instead of a struct merged from every tool's argument keys.
  CHECK(call["function"]["arguments"] == R"({"command":"ls /repo"})");
  CHECK(m[4]["tool_calls"][0]["function"]["arguments"] == "{}");
  CHECK(m[2]["reasoning_content"] == "the bug is near parse");
  CHECK(m[4]["reasoning_content"].is_null());  // no reasoning: null, not missing
  CHECK(m[4]["content"] == "");
  CHECK(m[3]["role"] == "tool");
  CHECK(m[3]["name"] == "bash");
  CHECK(m[3]["tool_call_id"] == "c1");
  CHECK(m[3]["tool_calls"].is_null());
  // Each tool's JSON Schema as text: one column type for all tools.
  CHECK(rec["tools"][0]["function"]["parameters"] ==
        R"({"type":"object","properties":{"command":{"type":"string"}},"required":["command"]})");
  CHECK(rec["metadata"]["format"] == "hf");
}

namespace {

// The value types of a record as a columnar loader sees them: objects by
// key, arrays by the unified type of their elements, null as its own type.
void TypeTree(const json& v, const std::string& path, std::map<std::string, json::value_t>* out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) TypeTree(it.value(), path + "." + it.key(), out);
  } else if (v.is_array()) {
    for (const json& e : v) TypeTree(e, path + "[]", out);
  }
  auto [at, fresh] = out->emplace(path, v.type());
  if (!fresh && at->second == json::value_t::null) at->second = v.type();
}

}  // namespace

// datasets' JSON builder types every column from the first file and casts
// the others to it; a field null on every T1 row cannot take T2's object.
TEST_CASE("T1 and T2 rows have one type tree in hf and sharegpt and sera", "[export]") {
  for (Format format : {Format::kHf, Format::kSharegpt, Format::kSera}) {
    INFO(FormatName(format));
    ExportOptions o;
    o.format = format;
    ExportTemplates templates = Templates();
    templates.sera_tools = "\nTOOLS {{tools_json}}";
    auto md1 = Meta();
    md1.rollout = 1;
    md1.scores.reset();
    auto r1 = BuildRecord(SampleTrajectory(), md1, o, templates);
    auto r2 = BuildRecord(SampleTrajectory(), Meta(), o, templates);
    REQUIRE(r1.ok());
    REQUIRE(r2.ok());
    std::map<std::string, json::value_t> t1, t2;
    TypeTree(json::parse(*r1), "", &t1);
    TypeTree(json::parse(*r2), "", &t2);
    for (const auto& [path, type] : t2) {
      INFO(path);
      REQUIRE(t1.contains(path));
      // A number may be written as an integer or a double; the column is one number type.
      auto number = [](json::value_t t) {
        return t == json::value_t::number_float || t == json::value_t::number_integer ||
               t == json::value_t::number_unsigned;
      };
      if (!(number(t1[path]) && number(type)) && path != ".metadata.seed") CHECK(t1[path] == type);
    }
    json m1 = json::parse(*r1)["metadata"];
    CHECK(m1["soft_verification"]["accepted"] == false);
    CHECK(m1["soft_verification"]["rule"] == "");
    CHECK(json::parse(*r2)["metadata"]["soft_verification"]["f1"] == 0.6);
  }
}

TEST_CASE("hf: think modes keep the reasoning_content key", "[export]") {
  ExportOptions o;
  o.think = ThinkMode::kDrop;
  json rec = Build(o);
  CHECK(rec["messages"][2].contains("reasoning_content"));
  CHECK(rec["messages"][2]["reasoning_content"].is_null());
  o.think = ThinkMode::kWrap;
  rec = Build(o);
  CHECK(rec["messages"][2]["reasoning_content"].is_null());
  CHECK(rec["messages"][2]["content"] == "<think>\nthe bug is near parse\n</think>\nLet me look.");
}

TEST_CASE("short9 tool-call ids: 9 alphanumerics, unique, call and result agree", "[export]") {
  auto t = SampleTrajectory();
  t.history[4].tool_calls[0].id = "c1";  // a server that reuses ids
  t.history[5].tool_call_id = "c1";
  for (Format f : {Format::kHf, Format::kOpenAI}) {
    ExportOptions o;
    o.format = f;
    o.short_tool_call_ids = true;
    json m = Build(o, t)["messages"];
    std::string a = m[2]["tool_calls"][0]["id"], b = m[4]["tool_calls"][0]["id"];
    CHECK(a.size() == 9);
    CHECK(std::all_of(a.begin(), a.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); }));
    CHECK(a != b);
    CHECK(m[3]["tool_call_id"] == a);
  }
  CHECK(Build({}, t)["messages"][2]["tool_calls"][0]["id"] == "c1");  // keep is the default
}

TEST_CASE("bytes that are not UTF-8 are replaced, not thrown on", "[export]") {
  auto t = SampleTrajectory();
  t.history[3].content = std::string("bad \xff\xfe byte");
  for (Format f : {Format::kHf, Format::kOpenAI, Format::kHermes, Format::kXml}) {
    ExportOptions o;
    o.format = f;
    auto r = BuildRecord(t, Meta(), o, Templates());
    REQUIRE(r.ok());
    CHECK(r->find("bad \xEF\xBF\xBD") != std::string::npos);
  }
}

TEST_CASE("hermes format: tool calls in tags, results as user turns, tools in the system prompt", "[export]") {
  ExportOptions o;
  o.format = Format::kHermes;
  json rec = Build(o);
  const json& m = rec["messages"];
  // One tool per line, written as chat templates' tojson writes it.
  CHECK(m[0]["content"].get<std::string>().find(
            "TOOLS {\"type\": \"function\", \"function\": {\"name\": \"bash\", \"description\": \"Run a command.\", "
            "\"parameters\": {\"type\": \"object\", \"properties\": {\"command\": {\"type\": \"string\"}}, "
            "\"required\": [\"command\"]}}}\n{\"type\": \"function\", \"function\": {\"name\": \"submit\"") !=
        std::string::npos);
  CHECK(m[2]["content"] ==
        "Let me look.\n<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls /repo\"}}\n</tool_call>");
  CHECK_FALSE(m[2].contains("tool_calls"));
  CHECK_FALSE(rec.contains("tools"));  // listed in the system turn only
  CHECK(m[3]["role"] == "user");
  CHECK(m[3]["content"] == "<tool_response>\na.py\nb.py\n</tool_response>");
}

TEST_CASE("xml format: function and parameter blocks", "[export]") {
  ExportOptions o;
  o.format = Format::kXml;
  json rec = Build(o);
  CHECK(
      rec["messages"][0]["content"] ==
      "You are an engineer.\nXMLTOOLS <function>\n<name>bash</name>\n<description>Run a command.</description>\n"
      "<parameters>\n<parameter>\n<name>command</name>\n<type>string</type>\n</parameter>\n"
      "<required>[\"command\"]</required>\n</parameters>\n</function>\n"
      "<function>\n<name>submit</name>\n<description>Submit.</description>\n<parameters>\n</parameters>\n</function>");
  CHECK(rec["messages"][2]["content"] ==
        "Let me look.\n\n<tool_call>\n<function=bash>\n<parameter=command>\nls "
        "/repo\n</parameter>\n</function>\n</tool_call>");
  CHECK(rec["messages"][4]["content"] == "<tool_call>\n<function=submit>\n</function>\n</tool_call>");
  auto t = SampleTrajectory();
  t.history[2].tool_calls[0].arguments_json = R"({"path":"a.py","view_range":[1,20]})";
  CHECK(Build(o, t)["messages"][2]["content"] ==
        "Let me look.\n\n<tool_call>\n<function=bash>\n<parameter=path>\na.py\n</parameter>\n"
        "<parameter=view_range>\n[1, 20]\n</parameter>\n</function>\n</tool_call>");
}

TEST_CASE("xml format: the turn's text is trimmed and a blank line comes before the call", "[export]") {
  ExportOptions o;
  o.format = Format::kXml;
  o.think = ThinkMode::kWrap;
  const std::string call =
      "<tool_call>\n<function=bash>\n<parameter=command>\nls /repo\n</parameter>\n</function>\n</tool_call>";
  CHECK(Build(o)["messages"][2]["content"] == "<think>\nthe bug is near parse\n</think>\nLet me look.\n\n" + call);
  auto t = SampleTrajectory();
  t.history[2].content = "";  // reasoning only: the wrapped think block ends in a newline
  CHECK(Build(o, t)["messages"][2]["content"] == "<think>\nthe bug is near parse\n</think>\n\n" + call);
  t.history[2].content = "\n  Let me look.\n\n";
  o.think = ThinkMode::kDrop;
  CHECK(Build(o, t)["messages"][2]["content"] == "Let me look.\n\n" + call);
}

TEST_CASE("think modes and train keys", "[export]") {
  ExportOptions o = OpenAI();
  o.think = ThinkMode::kDrop;
  o.train_keys = true;
  json rec = Build(o);
  CHECK_FALSE(rec["messages"][2].contains("reasoning_content"));
  CHECK(rec["messages"][2]["content"] == "Let me look.");
  CHECK(rec["messages"][2]["train"] == true);
  CHECK(rec["messages"][1]["train"] == false);
  CHECK(rec["messages"][3]["train"] == false);
  o.think = ThinkMode::kWrap;
  rec = Build(o);
  CHECK(rec["messages"][2]["content"] == "<think>\nthe bug is near parse\n</think>\nLet me look.");
  o.include_tools = false;
  CHECK_FALSE(Build(o).contains("tools"));
}

TEST_CASE("records are validated before they are written", "[export]") {
  auto t = SampleTrajectory();
  SECTION("unanswered call") {
    t.history.pop_back();
    auto r = BuildRecord(t, Meta(), {}, Templates());
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message() == "task abc123 rollout 2: tool call 'submit' at message 4 is never answered");
  }
  SECTION("does not end with submit") {
    t.history.resize(4);
    auto r = BuildRecord(t, Meta(), {}, Templates());
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("not with the submit tool") != std::string::npos);
  }
  SECTION("wrong answer id") {
    t.history[3].tool_call_id = "zzz";
    CHECK_FALSE(BuildRecord(t, Meta(), {}, Templates()).ok());
  }
  SECTION("two calls in one turn") {
    t.history[2].tool_calls.push_back(t.history[2].tool_calls.front());
    CHECK_FALSE(BuildRecord(t, Meta(), {}, Templates()).ok());
  }
  SECTION("roles out of order") {
    std::swap(t.history[0], t.history[1]);
    CHECK_FALSE(BuildRecord(t, Meta(), {}, Templates()).ok());
  }
  SECTION("invalid arguments") {
    t.history[2].tool_calls[0].arguments_valid = false;
    CHECK_FALSE(BuildRecord(t, Meta(), {}, Templates()).ok());
  }
}

TEST_CASE("scripted-teacher output is labelled as such", "[export]") {
  auto md = Meta();
  md.scripted_teacher = true;
  auto r = BuildRecord(SampleTrajectory(), md, {}, Templates());
  REQUIRE(r.ok());
  CHECK(json::parse(*r)["metadata"]["scripted_teacher"] == true);
}

TEST_CASE("shipped export templates load, format names parse", "[export]") {
  auto t = ExportTemplates::Load(seragen::testing::SourcePath("prompts/export"));
  REQUIRE(t.ok());
  CHECK(t->hermes_tools.find("{{tools_json}}") != std::string::npos);
  CHECK(t->xml_tools.find("{{tools_xml}}") != std::string::npos);
  CHECK(ParseFormat("hermes") == Format::kHermes);
  CHECK(ParseFormat("hf") == Format::kHf);
  CHECK(ParseFormat("sharegpt") == Format::kSharegpt);
  CHECK_FALSE(ParseFormat("alpaca").has_value());
  CHECK(ParseThinkMode("wrap") == ThinkMode::kWrap);
}

}  // namespace seragen::exporter
