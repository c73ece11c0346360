#include "seragen/llm/wire_codec.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "llm/llm_fixtures.h"
#include "seragen/llm/failure.h"
#include "seragen/llm/tool_arguments.h"

namespace seragen::llm {
namespace {
using nlohmann::json;
using testing::Fixture;

ChatResponse Decode(const std::string& name) {
  auto r = DecodeChatResponse(Fixture("responses/" + name + ".json"));
  INFO(name << ": " << r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

ChatRequest AgentRequest() {
  ChatRequest req;
  req.model = "GLM-4.6";
  req.messages.push_back({Role::kSystem, "You fix bugs."});
  req.messages.push_back({Role::kUser, "Fix parse_config."});
  Message assistant{Role::kAssistant, ""};
  assistant.reasoning = "Look first.";
  ToolCall good;
  good.id = "call_1";
  good.name = "bash";
  good.arguments_raw = R"({"command": "ls"})";
  ToolCall bad;
  bad.id = "call_2";
  bad.name = "bash";
  bad.arguments_raw = R"({"command": "ls)";
  assistant.tool_calls = {good, bad};
  req.messages.push_back(assistant);
  Message tool{Role::kTool, "a.py\nb.py"};
  tool.tool_call_id = "call_1";
  req.messages.push_back(tool);
  req.tools.push_back({"bash", "Run a command",
                       R"({"type":"object","properties":{"command":{"type":"string"}},"required":["command"]})"});
  return req;
}
}  // namespace

TEST_CASE("encoding: messages, tools, sampling, stream options", "[llm][codec]") {
  ChatRequest req = AgentRequest();
  req.tool_choice.mode = ToolChoice::Mode::kAuto;
  req.parallel_tool_calls = false;
  req.sampling.temperature = 0.6;
  req.sampling.top_p = 0.95;
  req.max_tokens = 4096;
  req.seed = 42;
  req.stop = {"</s>"};
  WireOptions options;
  options.stream = true;
  auto text = EncodeChatRequest(req, options);
  REQUIRE(text.ok());
  json j = json::parse(*text);
  CHECK(j["model"] == "GLM-4.6");
  CHECK(j["messages"].size() == 4);
  CHECK(j["messages"][0]["role"] == "system");
  CHECK(j["messages"][2]["content"].is_null());  // assistant with only tool calls
  CHECK(j["messages"][2]["reasoning"] == "Look first.");
  CHECK_FALSE(j["messages"][2].contains("reasoning_content"));
  CHECK(j["messages"][3]["tool_call_id"] == "call_1");
  CHECK(j["tools"][0]["type"] == "function");
  CHECK(j["tools"][0]["function"]["parameters"]["required"][0] == "command");
  CHECK(j["tool_choice"] == "auto");
  CHECK(j["parallel_tool_calls"] == false);
  CHECK(j["temperature"] == 0.6);
  CHECK(j["max_tokens"] == 4096);
  CHECK(j["seed"] == 42);
  CHECK(j["stop"][0] == "</s>");
  CHECK(j["stream"] == true);
  CHECK(j["stream_options"]["include_usage"] == true);
}

TEST_CASE("history hygiene: tool-call arguments sent back are always valid JSON", "[llm][codec]") {
  auto text = EncodeChatRequest(AgentRequest(), WireOptions{});
  REQUIRE(text.ok());
  json j = json::parse(*text);
  auto calls = j["messages"][2]["tool_calls"];
  CHECK(calls[0]["function"]["arguments"] == R"({"command": "ls"})");  // raw bytes kept when valid
  CHECK(calls[1]["function"]["arguments"] == "{}");                    // invalid -> {}
  CHECK_FALSE(j.contains("stream"));
}

TEST_CASE("reasoning field sent back is configurable", "[llm][codec]") {
  using F = WireOptions::ReasoningField;
  auto encode = [](F field) {
    WireOptions o;
    o.reasoning_field = field;
    return json::parse(*EncodeChatRequest(AgentRequest(), o))["messages"][2];
  };
  CHECK(encode(F::kReasoningContent)["reasoning_content"] == "Look first.");
  CHECK_FALSE(encode(F::kReasoningContent).contains("reasoning"));
  auto both = encode(F::kBoth);
  CHECK(both["reasoning"] == "Look first.");
  CHECK(both["reasoning_content"] == "Look first.");
  auto think = encode(F::kThinkTagInContent);
  CHECK(think["content"] == "<think>Look first.</think>");
  CHECK_FALSE(encode(F::kOmit).contains("reasoning"));
  CHECK(ParseReasoningField("reasoning_content").value() == F::kReasoningContent);
  CHECK_FALSE(ParseReasoningField("thoughts").ok());
}

TEST_CASE("named tool choice and extra body passthrough", "[llm][codec]") {
  ChatRequest req = AgentRequest();
  req.tool_choice = {ToolChoice::Mode::kNamed, "bash"};
  req.sampling.temperature = 1.0;
  req.extra_body_json = R"({"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}, "temperature": 0.2})";
  json j = json::parse(*EncodeChatRequest(req, WireOptions{}));
  CHECK(j["tool_choice"]["function"]["name"] == "bash");
  CHECK(j["top_k"] == 20);
  CHECK(j["chat_template_kwargs"]["enable_thinking"] == false);
  CHECK(j["temperature"] == 0.2);  // extra body overrides
}

TEST_CASE("encoding errors name the bad field", "[llm][codec]") {
  ChatRequest req = AgentRequest();
  req.extra_body_json = "[1,2]";
  auto r = EncodeChatRequest(req, WireOptions{});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("extra_body_json") != std::string::npos);
  req.extra_body_json.clear();
  req.tools[0].parameters_json = "{not json";
  r = EncodeChatRequest(req, WireOptions{});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("tool 'bash'") != std::string::npos);
}

TEST_CASE("invalid UTF-8 in history does not break encoding", "[llm][codec]") {
  ChatRequest req;
  req.model = "m";
  req.messages.push_back({Role::kUser, std::string("bad \xff\xfe bytes")});
  auto r = EncodeChatRequest(req, WireOptions{});
  REQUIRE(r.ok());
  CHECK(json::parse(*r)["messages"][0]["content"].get<std::string>().find("bad") == 0);
}

TEST_CASE("F1a OpenAI tool call with cached-token usage", "[llm][codec][fixture]") {
  ChatResponse r = Decode("f1a_openai_tool_call");
  CHECK(r.content_was_null);
  CHECK(r.content.empty());
  REQUIRE(r.tool_calls.size() == 1);
  CHECK(r.tool_calls[0].id == "call_8GQx1T2p6XhJ0bYcVfL3mN4a");
  CHECK(r.tool_calls[0].name == "bash");
  CHECK(r.tool_calls[0].arguments_valid);
  CHECK(json::parse(r.tool_calls[0].arguments_json)["command"] == "grep -rn \"def parse_config\" src/");
  CHECK(r.finish_reason == "tool_calls");
  CHECK(r.usage.prompt_tokens == 1523);
  CHECK(r.usage.cached_prompt_tokens == std::optional<std::int64_t>(1280));
  CHECK(r.usage.reasoning_tokens == std::optional<std::int64_t>(0));
  CHECK(r.tool_issue == ToolIssue::kNone);
  CHECK(r.raw_body.find("system_fingerprint") != std::string::npos);
}

TEST_CASE("F1b vLLM extras, null prompt_tokens_details means unknown cached tokens", "[llm][codec][fixture]") {
  ChatResponse r = Decode("f1b_vllm_tool_call");
  CHECK(r.reasoning_source == ReasoningSource::kReasoningField);
  CHECK(r.tool_calls[0].id == "chatcmpl-tool-b99d32848b324eaea4bac5a5830d00b8");
  CHECK(r.usage.present);
  CHECK_FALSE(r.usage.cached_prompt_tokens.has_value());
  CHECK(r.tool_issue == ToolIssue::kNone);
}

TEST_CASE("hostile cached_tokens values are treated as unknown", "[llm][codec]") {
  auto cached = [](const std::string& details) {
    const std::string body =
        R"({"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":)"
        R"({"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,)"
        R"("completion_tokens":2,"total_tokens":102,"prompt_tokens_details":)" +
        details + "}}";
    auto r = DecodeChatResponse(body);
    REQUIRE(r.ok());
    return r->usage.cached_prompt_tokens;
  };
  CHECK(cached(R"({"cached_tokens":96})") == std::optional<std::int64_t>(96));
  CHECK(cached(R"({"cached_tokens":0})") == std::optional<std::int64_t>(0));
  CHECK_FALSE(cached(R"({"cached_tokens":-5})").has_value());
  CHECK_FALSE(cached(R"({"cached_tokens":101})").has_value());
  CHECK_FALSE(cached(R"({"cached_tokens":18446744073709551615})").has_value());
  CHECK_FALSE(cached(R"({"cached_tokens":12.5})").has_value());
  CHECK_FALSE(cached(R"({"cached_tokens":"64"})").has_value());
  CHECK_FALSE(cached(R"({"cached_tokens":null})").has_value());
  CHECK_FALSE(cached(R"({})").has_value());
}

TEST_CASE("content null, empty and whitespace with tool calls are all 'no text'", "[llm][codec][fixture]") {
  for (const char* name : {"f1b_vllm_tool_call", "f1b_content_empty", "f1b_content_whitespace"}) {
    ChatResponse r = Decode(name);
    INFO(name);
    CHECK(r.tool_issue == ToolIssue::kNone);
    CHECK(r.tool_calls.size() == 1);
    CHECK(r.content.find_first_not_of(" \n\t") == std::string::npos);
  }
  CHECK(Decode("f1b_content_empty").content_was_null == false);
}

TEST_CASE("each reasoning variant is read and its source recorded", "[llm][codec][fixture]") {
  ChatResponse a = Decode("f2a_reasoning_content");
  CHECK(a.reasoning == "Let me look at how parse_config handles missing keys first.");
  CHECK(a.reasoning_source == ReasoningSource::kReasoningContentField);
  ChatResponse b = Decode("f2b_reasoning");
  CHECK(b.reasoning == a.reasoning);
  CHECK(b.reasoning_source == ReasoningSource::kReasoningField);
  ChatResponse c = Decode("f2c_think_in_content");
  CHECK(c.reasoning == "The bug is probably in the default-merging branch.");
  CHECK(c.content == "I'll open the file.");
  CHECK(c.reasoning_source == ReasoningSource::kThinkTag);
  CHECK(c.tool_calls.size() == 1);
}

TEST_CASE("think tag edge cases", "[llm][codec]") {
  ChatResponse lone;
  lone.content = "thinking without opener</think>\n\nAnswer";
  ExtractThinkTag(lone);
  CHECK(lone.reasoning == "thinking without opener");
  CHECK(lone.content == "Answer");
  ChatResponse cut;
  cut.content = "  <think>never closed";
  ExtractThinkTag(cut);
  CHECK(cut.reasoning == "never closed");
  CHECK(cut.content.empty());
  ChatResponse plain;
  plain.content = "no tags <think> in the middle";
  ExtractThinkTag(plain);
  CHECK(plain.reasoning.empty());
  CHECK(plain.reasoning_source == ReasoningSource::kNone);
  ChatResponse has_field;
  has_field.reasoning = "from field";
  has_field.reasoning_source = ReasoningSource::kReasoningField;
  has_field.content = "<think>x</think>y";
  ExtractThinkTag(has_field);
  CHECK(has_field.reasoning == "from field");
}

TEST_CASE("F3a truncated arguments with length: ToolArgs naming the cut-off", "[llm][codec][fixture]") {
  ChatResponse r = Decode("f3a_truncated_length");
  CHECK(r.finish_reason == "length");
  REQUIRE(r.tool_calls.size() == 1);
  CHECK_FALSE(r.tool_calls[0].arguments_valid);
  CHECK(r.tool_calls[0].arguments_json == "{}");
  CHECK(r.tool_calls[0].arguments_raw.find("retu") != std::string::npos);  // raw kept
  CHECK(r.tool_issue == ToolIssue::kToolArgs);
  CHECK(r.tool_issue_detail.find("max_tokens") != std::string::npos);
}

TEST_CASE("F3b / GLM markup left in content: ToolFormat", "[llm][codec][fixture]") {
  for (const char* name : {"f3b_markup_in_content", "glm47_markup_in_content"}) {
    ChatResponse r = Decode(name);
    INFO(name);
    CHECK(r.tool_calls.empty());
    CHECK(r.tool_issue == ToolIssue::kToolFormat);
  }
}

TEST_CASE("F3f tool call inside reasoning: ToolFormat", "[llm][codec][fixture]") {
  ChatResponse r = Decode("f3f_tool_call_in_reasoning");
  CHECK(r.tool_issue == ToolIssue::kToolFormat);
  CHECK(r.tool_issue_detail.find("reasoning") != std::string::npos);
}

TEST_CASE("finish_reason tool_calls with no calls: ToolFormat", "[llm][codec][fixture]") {
  CHECK(Decode("f7_required_empty_tool_calls").tool_issue == ToolIssue::kToolFormat);
}

TEST_CASE("F3c numbers as strings stay valid JSON (schema check is separate)", "[llm][codec][fixture]") {
  ChatResponse r = Decode("f3c_numbers_as_strings");
  REQUIRE(r.tool_calls.size() == 1);
  CHECK(r.tool_calls[0].arguments_valid);
  CHECK(json::parse(r.tool_calls[0].arguments_json)["offset"] == "490");
}

TEST_CASE("F3e glued objects: ToolArgs with the count, and splittable", "[llm][codec][fixture]") {
  ChatResponse r = Decode("f3e_glued_arguments");
  CHECK(r.tool_issue == ToolIssue::kToolArgs);
  CHECK(r.tool_calls[0].arguments_error.find("2 JSON objects glued") != std::string::npos);
  auto parts = SplitGluedJsonObjects(r.tool_calls[0].arguments_raw);
  REQUIRE(parts.size() == 2);
  CHECK(parts[1] == R"({"file_path": "b.py"})");
  CHECK(SplitGluedJsonObjects(R"({"a": "}{"})").empty());  // braces inside strings
  CHECK(SplitGluedJsonObjects(R"({"a":1} x {"b":2})").empty());
}

TEST_CASE("argument parsing: empty, double-serialised, non-object", "[llm][codec]") {
  ToolCall c;
  c.arguments_raw = "  ";
  ParseToolCallArguments(c);
  CHECK(c.arguments_valid);
  CHECK(c.arguments_json == "{}");
  c.arguments_raw = R"("{\"location\":\"Dalian\"}")";
  ParseToolCallArguments(c);
  CHECK(c.arguments_valid);
  CHECK(c.arguments_json == R"({"location":"Dalian"})");
  c.arguments_raw = "[1,2]";
  ParseToolCallArguments(c);
  CHECK_FALSE(c.arguments_valid);
  CHECK(c.arguments_error.find("array") != std::string::npos);
}

TEST_CASE("an error object inside a 200 body is a classified failure", "[llm][codec][fixture]") {
  auto r = DecodeChatResponse(Fixture("responses/openrouter_error_in_200_body.json"));
  REQUIRE_FALSE(r.ok());
  CHECK(FailureClassOf(r.status()) == FailureClass::kTransientServer);
  CHECK(r.status().message().find("Provider returned error") != std::string::npos);
}

TEST_CASE("malformed 200 bodies are transient server failures", "[llm][codec]") {
  for (const char* body :
       {"", "<html>", "[]", R"({"choices":[]})", R"({"choices":[{"finish_reason":"error","message":{}}]})"}) {
    auto r = DecodeChatResponse(body);
    INFO(body);
    REQUIRE_FALSE(r.ok());
    CHECK(FailureClassOf(r.status()) == FailureClass::kTransientServer);
  }
}

// The model's own order, duplicates as Python's json.loads reads them (the
// first key's place, the last value), astral characters decoded to UTF-8.
TEST_CASE("argument parsing keeps the model's key order, nested objects included", "[llm][codec]") {
  ToolCall c;
  c.arguments_raw = R"({"path": "/r/a.py", "command": "str_replace", "old_str": "x", "new_str": "y"})";
  ParseToolCallArguments(c);
  REQUIRE(c.arguments_valid);
  CHECK(c.arguments_json == R"({"path":"/r/a.py","command":"str_replace","old_str":"x","new_str":"y"})");
  c.arguments_raw = R"({"z": {"y": 1, "b": [{"q": 1, "a": 2}]}, "a": "\ud83d\ude00", "z2": "😀", "z": {"k": 0}})";
  ParseToolCallArguments(c);
  REQUIRE(c.arguments_valid);
  CHECK(c.arguments_json == R"({"z":{"k":0},"a":"😀","z2":"😀"})");
  CHECK(ModelArgumentsText(c) == c.arguments_raw);  // the model's bytes, duplicates and escapes included
}

TEST_CASE("the model's argument text: raw when it is one object, else the parsed object, else {}", "[llm][codec]") {
  ToolCall c;
  c.arguments_raw = R"("{\"b\":1,\"a\":2}")";  // double-serialised
  ParseToolCallArguments(c);
  CHECK(ModelArgumentsText(c) == R"({"b":1,"a":2})");
  c.arguments_raw = R"({"a": )";
  ParseToolCallArguments(c);
  CHECK(ModelArgumentsText(c) == "{}");
  c.arguments_raw = "";
  ParseToolCallArguments(c);
  CHECK(ModelArgumentsText(c) == "{}");
}

TEST_CASE("a response decoded from the wire keeps each call's argument order and bytes", "[llm][codec]") {
  const std::string body =
      R"({"id":"r","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant",)"
      R"("content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"editor","arguments":)"
      R"("{\"command\": \"str_replace\", \"path\": \"/r/a.py\", \"old_str\": \"\\ud83d\\ude00\", \"new_str\": \"b\"}"}}]}}]})";
  Result<ChatResponse> r = DecodeChatResponse(body);
  REQUIRE(r.ok());
  const ToolCall& c = r->tool_calls.at(0);
  CHECK(c.arguments_raw ==
        R"({"command": "str_replace", "path": "/r/a.py", "old_str": "\ud83d\ude00", "new_str": "b"})");
  CHECK(c.arguments_json == R"({"command":"str_replace","path":"/r/a.py","old_str":"😀","new_str":"b"})");
}

TEST_CASE("encoding: tool schemas keep the order they were given in", "[llm][codec]") {
  ChatRequest req = AgentRequest();
  req.tools = {
      {"zeta", "z",
       R"({"type":"object","properties":{"path":{"type":"string"},"command":{"type":"string"}},"required":["path"]})"},
      {"alpha", "a", R"({"type":"object","properties":{}})"}};
  Result<std::string> text = EncodeChatRequest(req, WireOptions{});
  REQUIRE(text.ok());
  CHECK(
      text->find(
          R"({"type":"function","function":{"name":"zeta","description":"z","parameters":{"type":"object","properties":{"path":{"type":"string"},"command":{"type":"string"}},"required":["path"]}}})") !=
      std::string::npos);
  CHECK(text->find("\"zeta\"") < text->find("\"alpha\""));
}

}  // namespace seragen::llm
