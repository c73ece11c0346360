// The sharegpt layout through BuildRecord (sharegpt_record.h is internal).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "export/call_fixture.h"
#include "seragen/export/record.h"

namespace seragen::exporter {
namespace {

using nlohmann::json;

using fixture::Call;

// system, user, three calls (reasoning + text, text only, nothing) and the
// submit result.
std::vector<llm::Message> History() {
  return {
      {llm::Role::kSystem, "You are an engineer.", {}, {}, {}, {}},
      {llm::Role::kUser, "Fix the bug.", {}, {}, {}, {}},
      {llm::Role::kAssistant,
       "Listing.",
       "  the bug is near parse\n",
       {Call("c1", "bash", R"({"command":"ls"})")},
       {},
       {}},
      {llm::Role::kTool, "a.py", {}, {}, "c1", "bash"},
      {llm::Role::kAssistant, " Now the tests. ", {}, {Call("c2", "bash", R"({"command":"pytest -q"})")}, {}, {}},
      {llm::Role::kTool, "1 passed", {}, {}, "c2", "bash"},
      {llm::Role::kAssistant, "", {}, {Call("c3", "submit", "{}")}, {}, {}},
      {llm::Role::kTool, "submitted", {}, {}, "c3", "submit"},
  };
}

agent::Trajectory Sample() {
  agent::Trajectory t;
  t.history = History();
  t.exit_status = agent::ExitStatus::kSubmitted;
  t.tools.push_back({"bash", "Run a command.", R"({"type":"object","properties":{"command":{"type":"string"}}})"});
  t.tools.push_back({"submit", "Submit.", R"({"type":"object","properties":{}})"});
  return t;
}

json Build(ThinkMode think = ThinkMode::kKeep, bool tools = true) {
  ExportOptions o;
  o.format = Format::kSharegpt;
  o.think = think;
  o.include_tools = tools;
  RecordMetadata md;
  md.task_id = "t1";
  auto r = BuildRecord(Sample(), md, o, ExportTemplates{});
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return json::parse(*r);
}

}  // namespace

TEST_CASE("sharegpt: LLaMA-Factory's roles alternate and the count is even", "[export]") {
  json rec = Build();
  const json& c = rec["conversations"];
  REQUIRE(c.size() == 6);  // human, 3 calls, 2 observations; the submit result is left out
  for (std::size_t i = 0; i < c.size(); ++i) {
    INFO(i);
    if (i % 2 == 0) CHECK((c[i]["from"] == "human" || c[i]["from"] == "observation"));
    if (i % 2 == 1) CHECK(c[i]["from"] == "function_call");
  }
  CHECK(c[0]["value"] == "Fix the bug.");
  CHECK(c[2]["value"] == "a.py");
  CHECK(rec["system"] == "You are an engineer.");
  CHECK(rec["metadata"]["format"] == "sharegpt");
}

TEST_CASE("sharegpt: the reasoning, else the text, goes in a think block before the call", "[export]") {
  const json c = Build()["conversations"];
  CHECK(c[1]["value"] ==
        "<think>\nthe bug is near parse\n</think>\n\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}");
  CHECK(c[3]["value"] ==
        "<think>\nNow the tests.\n</think>\n\n{\"name\": \"bash\", \"arguments\": {\"command\": \"pytest -q\"}}");
  CHECK(c[5]["value"] == "{\"name\": \"submit\", \"arguments\": {}}");
  const json dropped = Build(ThinkMode::kDrop)["conversations"];
  CHECK(dropped[1]["value"] == "{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}");
}

TEST_CASE("sharegpt: tools are one JSON string of name, description and parameters", "[export]") {
  json rec = Build();
  REQUIRE(rec["tools"].is_string());
  json tools = json::parse(rec["tools"].get<std::string>());
  REQUIRE(tools.size() == 2);
  CHECK(tools[0]["name"] == "bash");
  CHECK(tools[0]["description"] == "Run a command.");
  CHECK(tools[0]["parameters"]["properties"]["command"]["type"] == "string");
  CHECK(Build(ThinkMode::kKeep, false)["tools"] == "");
}

// LLaMA-Factory's function formatter looks for <tool_call>…</tool_call> and
// then <think>…</think> in a function_call value and parses what is left as
// the call's JSON: one such word of the rollout's own stops the whole run.
TEST_CASE("sharegpt: a rollout whose reasoning or call holds think or tool-call markup is refused", "[export]") {
  CHECK_FALSE(SharegptMarkupConflict(Sample(), ThinkMode::kKeep));
  agent::Trajectory closing = Sample();
  closing.history[2].reasoning = "the template ends the block with\n</think>\nso I keep it";
  CHECK(SharegptMarkupConflict(closing, ThinkMode::kKeep));
  CHECK_FALSE(SharegptMarkupConflict(closing, ThinkMode::kDrop));  // no think block written
  agent::Trajectory commentary = Sample();
  commentary.history[4].content = "I will print <tool_call> tags.";  // the think block's text without reasoning
  CHECK(SharegptMarkupConflict(commentary, ThinkMode::kKeep));
  agent::Trajectory args = Sample();
  args.history[4].tool_calls = {fixture::Call("c2", "bash", R"({"command":"grep -n '</tool_call>' t.jinja"})")};
  CHECK(SharegptMarkupConflict(args, ThinkMode::kDrop));
  ExportOptions o;
  o.format = Format::kSharegpt;
  RecordMetadata md;
  md.task_id = "t1";
  CHECK_FALSE(BuildRecord(closing, md, o, ExportTemplates{}).ok());
  CHECK_FALSE(BuildRecord(args, md, o, ExportTemplates{}).ok());
}

}  // namespace seragen::exporter
