// The teacher's own bytes, from the wire to every export format: raw server
// answers (a JSON body and an SSE stream) are decoded by the client's codec,
// written to a turn log and read back as a resumed rollout reads them, kept
// in a trajectory file and read back, and exported in every format. Every row
// must hold the arguments in the order the model wrote them (nested objects
// included), repeated keys and astral characters as each format can carry
// them, and the tool schemas in the order of the tools file.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "seragen/agent/trajectory_json.h"
#include "seragen/base/file_util.h"
#include "seragen/export/record.h"
#include "seragen/journal/turn_log.h"
#include "seragen/llm/sse_assembler.h"
#include "seragen/llm/wire_codec.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::publish {
namespace {

using ojson = nlohmann::ordered_json;

// One assistant turn as the model answered it.
struct WireTurn {
  std::string reasoning;
  std::string content;
  std::string name;
  std::string arguments;  // the arguments string exactly as the server sent it
  bool streamed = false;
};

// Keys out of alphabetical order, a nested object, a repeated key (the first
// `timeout` is overwritten), astral characters raw and as escapes, non-ASCII.
std::vector<WireTurn> Turns() {
  return {
      {"I will read the file first.", "Reading.", "editor",
       R"({"path": "/repo/src/ü.py", "command": "view", "view_range": [1, 40]})"},
      {"", "Now the fix.", "editor",
       R"({"command": "str_replace", "path": "/repo/src/a.py", "old_str": "return 1", "new_str": "return 2  # \ud83d\ude00 𝄞"})"},
      {"Check with a script.", "", "bash",
       R"({"command": "python3 -c 'print(1)'", "timeout": 30, "env": {"Z": "1", "A": {"y": [1, {"q": 1, "b": 2}]}}, "timeout": 60})",
       /*streamed=*/true},
      {"Done.", "", "submit", "{}"},
  };
}

// What each object-carrying format shows of each call (hand-written): the
// model's order, the repeated key at its first place with its last value.
const char* kCallJson[] = {
    R"({"name": "editor", "arguments": {"path": "/repo/src/ü.py", "command": "view", "view_range": [1, 40]}})",
    R"({"name": "editor", "arguments": {"command": "str_replace", "path": "/repo/src/a.py", "old_str": "return 1", "new_str": "return 2  # 😀 𝄞"}})",
    R"({"name": "bash", "arguments": {"command": "python3 -c 'print(1)'", "timeout": 60, "env": {"Z": "1", "A": {"y": [1, {"q": 1, "b": 2}]}}}})",
    R"({"name": "submit", "arguments": {}})",
};
// The same as Python's json.dumps writes it (the sera format).
const char* kCallAscii[] = {
    R"({"name": "editor", "arguments": {"path": "/repo/src/\u00fc.py", "command": "view", "view_range": [1, 40]}})",
    R"({"name": "editor", "arguments": {"command": "str_replace", "path": "/repo/src/a.py", "old_str": "return 1", "new_str": "return 2  # \ud83d\ude00 \ud834\udd1e"}})",
    kCallJson[2],
    kCallJson[3],
};
// The xml format: one parameter block per argument, in the model's order.
const char* kXmlCalls[] = {
    "<function=editor>\n<parameter=path>\n/repo/src/ü.py\n</parameter>\n<parameter=command>\nview\n</parameter>\n"
    "<parameter=view_range>\n[1, 40]\n</parameter>\n</function>",
    "<function=editor>\n<parameter=command>\nstr_replace\n</parameter>\n<parameter=path>\n/repo/src/a.py\n</"
    "parameter>\n"
    "<parameter=old_str>\nreturn 1\n</parameter>\n<parameter=new_str>\nreturn 2  # 😀 𝄞\n</parameter>\n</function>",
    "<function=bash>\n<parameter=command>\npython3 -c 'print(1)'\n</parameter>\n<parameter=timeout>\n60\n</parameter>\n"
    "<parameter=env>\n{\"Z\": \"1\", \"A\": {\"y\": [1, {\"q\": 1, \"b\": 2}]}}\n</parameter>\n</function>",
    "<function=submit>\n</function>",
};

ojson Message(const WireTurn& t, int index) {
  ojson m = {{"role", "assistant"}, {"content", t.content.empty() ? ojson(nullptr) : ojson(t.content)}};
  if (!t.reasoning.empty()) m["reasoning_content"] = t.reasoning;
  m["tool_calls"] = ojson::array({{{"id", "call_" + std::to_string(index)},
                                   {"type", "function"},
                                   {"function", {{"name", t.name}, {"arguments", t.arguments}}}}});
  return m;
}

// The answer as the server's bytes: one JSON body, or an SSE stream that
// splits the arguments string in three pieces.
std::string WireBody(const WireTurn& t, int index) {
  if (!t.streamed) {
    return ojson{
        {"id", "r"},
        {"model", "teacher"},
        {"choices", ojson::array({{{"index", 0}, {"finish_reason", "tool_calls"}, {"message", Message(t, index)}}})}}
        .dump();
  }
  auto chunk = [](const ojson& delta, const char* finish) {
    ojson c = {{"id", "r"}, {"model", "teacher"}, {"choices", ojson::array({{{"index", 0}, {"delta", delta}}})}};
    if (finish) c["choices"][0]["finish_reason"] = finish;
    return "data: " + c.dump() + "\n\n";
  };
  std::string out = chunk({{"role", "assistant"}, {"reasoning_content", t.reasoning}}, nullptr);
  const std::size_t third = t.arguments.size() / 3;
  for (int piece = 0; piece < 3; ++piece) {
    std::string part = t.arguments.substr(piece * third, piece == 2 ? std::string::npos : third);
    ojson fn = {{"arguments", part}};
    ojson call = {{"index", 0}};
    if (piece == 0) {
      call["id"] = "call_" + std::to_string(index);
      call["type"] = "function";
      fn["name"] = t.name;
    }
    call["function"] = fn;
    out += chunk({{"tool_calls", ojson::array({call})}}, nullptr);
  }
  return out + chunk(ojson::object(), "tool_calls") + "data: [DONE]\n\n";
}

// The client's decoding of one answer.
llm::ChatResponse Decode(const WireTurn& t, int index) {
  const std::string body = WireBody(t, index);
  if (!t.streamed) {
    Result<llm::ChatResponse> r = llm::DecodeChatResponse(body);
    REQUIRE(r.ok());
    return *r;
  }
  llm::SseAssembler sse;
  REQUIRE(sse.Feed(body));
  Result<llm::ChatResponse> r = sse.Finish();
  REQUIRE(r.ok());
  return *r;
}

// Written to a turn log and read back as a resumed rollout reads it.
std::vector<llm::ChatResponse> ThroughTurnLog(const std::vector<llm::ChatResponse>& answers) {
  std::string log = journal::EncodeTurnLogHeader({"t1", 1, 1, 0, 0}) + "\n";
  for (std::size_t i = 0; i < answers.size(); ++i) {
    Result<std::string> line =
        journal::EncodeTurnLogAnswer({static_cast<int>(i), "sha", 0.5, agent::ResponseToJson(answers[i])});
    REQUIRE(line.ok());
    log += *line + "\n";
  }
  Result<journal::LoadedTurnLog> loaded = journal::ParseTurnLog(log, "turns.jsonl");
  REQUIRE(loaded.ok());
  std::vector<llm::ChatResponse> out;
  for (const journal::TurnLogTurn& turn : loaded->turns) {
    Result<llm::ChatResponse> r = agent::ResponseFromJson(turn.answer.response_json);
    REQUIRE(r.ok());
    out.push_back(*r);
  }
  return out;
}

// The tool list as a tools file gives it: properties and schema keys out of
// alphabetical order; the descriptions mark the file's order.
std::vector<llm::ToolSpec> Tools() {
  return {{"editor", "Edit files.",
           R"({"type":"object","properties":{"command":{"type":"string","description":"first property"},)"
           R"("path":{"type":"string","description":"second property"},)"
           R"("old_str":{"type":"string","description":"third property"},)"
           R"("new_str":{"type":"string","description":"fourth property"}},"required":["command","path"]})"},
          {"bash", "Run a command.", R"({"type":"object","properties":{"command":{"type":"string"}}})"},
          {"submit", "Hand in.", R"({"type":"object","properties":{}})"}};
}

// The rollout's trajectory (its history holds each answer as the rollout
// puts it there), saved and loaded again.
agent::Trajectory SavedTrajectory() {
  std::vector<llm::ChatResponse> answers;
  for (std::size_t i = 0; i < Turns().size(); ++i) answers.push_back(Decode(Turns()[i], static_cast<int>(i)));
  agent::Trajectory t;
  t.task_id = "t1";
  t.model = "teacher";
  t.tools = Tools();
  t.history = {{llm::Role::kSystem, "You fix bugs.", "", {}, "", ""}, {llm::Role::kUser, "Fix it.", "", {}, "", ""}};
  for (const llm::ChatResponse& r : ThroughTurnLog(answers)) {
    REQUIRE(r.tool_calls.size() == 1);
    t.history.push_back({llm::Role::kAssistant, r.content, r.reasoning, r.tool_calls, "", ""});
    t.history.push_back({llm::Role::kTool, "ok 😀", "", {}, r.tool_calls.front().id, ""});
  }
  t.patch = "diff --git a/src/a.py b/src/a.py\n";
  t.has_patch = true;
  Result<agent::Trajectory> loaded = agent::TrajectoryFromJson(agent::TrajectoryToJson(t));
  REQUIRE(loaded.ok());
  return *loaded;
}

Result<std::string> Row(const agent::Trajectory& t, exporter::Format format) {
  Result<exporter::ExportTemplates> templates =
      exporter::ExportTemplates::Load(seragen::testing::SourcePath("prompts/export"));
  REQUIRE(templates.ok());
  REQUIRE(templates->LoadSeraFraming(seragen::testing::SourcePath("prompts/") + exporter::kDefaultSeraFraming).ok());
  exporter::ExportOptions options;
  options.format = format;
  exporter::RecordMetadata md;
  md.task_id = "t1";
  return exporter::BuildRecord(t, md, options, *templates);
}

// Every string value of a row, decoded, one after another.
void Strings(const ojson& j, std::string& out) {
  if (j.is_string()) out += j.get<std::string>() + "\x1e";
  for (const ojson& v : j) {
    if (j.is_structured()) Strings(v, out);
  }
}

}  // namespace

TEST_CASE("export: every format keeps the model's argument order and bytes from the wire, and the tools file's order",
          "[export]") {
  const agent::Trajectory t = SavedTrajectory();
  for (const std::string& name : exporter::FormatNames()) {
    INFO(name);
    exporter::Format format = *exporter::ParseFormat(name);
    Result<std::string> line = Row(t, format);
    INFO(line.status().ToString());
    REQUIRE(line.ok());
    std::string text;
    Strings(ojson::parse(*line), text);
    for (std::size_t i = 0; i < Turns().size(); ++i) {
      INFO("call " << i);
      switch (format) {
        case exporter::Format::kHf:
        case exporter::Format::kOpenAI:  // the argument string: the model's bytes, byte for byte
          CHECK(text.find("\x1e" + Turns()[i].arguments + "\x1e") != std::string::npos);
          break;
        case exporter::Format::kXml: CHECK(text.find(kXmlCalls[i]) != std::string::npos); break;
        case exporter::Format::kSera: CHECK(text.find(kCallAscii[i]) != std::string::npos); break;
        default: CHECK(text.find(kCallJson[i]) != std::string::npos); break;
      }
    }
    const std::size_t first = text.find("first property"), second = text.find("second property");
    const std::size_t third = text.find("third property"), fourth = text.find("fourth property");
    CHECK(first < second);
    CHECK(second < third);
    CHECK(third < fourth);
    CHECK(fourth != std::string::npos);
  }
}

// SERA's post-processing (tests/publish/sera_rules.py, its rules in our own
// words: the wire arguments read by json.loads and written by json.dumps, the
// think block, keep_only_think, train keys) over the openai rows, which carry
// the wire turns, equals the sera export message for message, key order
// included.
TEST_CASE("export: SERA's post-processing over the wire turns equals the sera export", "[export]") {
  const agent::Trajectory t = SavedTrajectory();
  Result<std::string> wire = Row(t, exporter::Format::kOpenAI);
  Result<std::string> sera = Row(t, exporter::Format::kSera);
  REQUIRE(wire.ok());
  REQUIRE(sera.ok());
  seragen::testing::TempDir dir;
  REQUIRE(WriteFileAtomic(dir.Sub("wire.jsonl"), *wire + "\n").ok());
  REQUIRE(WriteFileAtomic(dir.Sub("sera.jsonl"), *sera + "\n").ok());
  const std::string command = "python3 " + seragen::testing::SourcePath("tests/publish/sera_rules.py") + " " +
                              dir.Sub("wire.jsonl") + " " + dir.Sub("sera.jsonl") + " > " + dir.Sub("out.txt") +
                              " 2>&1";
  const int rc = std::system(command.c_str());
  INFO(ReadFile(dir.Sub("out.txt")).value_or(""));
  CHECK(rc == 0);
}

}  // namespace seragen::publish
