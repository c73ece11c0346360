// Wire conformance: the response shapes of tests/llm/fixtures groups f1
// (non-stream), f2 (reasoning), f4 (SSE framing and tool-call deltas) and f8
// (errors inside a stream), checked with a plain JSON parser and an SSE
// assembler written from those rules.
#include "teacher/wire_format.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "seragen/base/rng.h"

using namespace seragen::teacher;
using nlohmann::json;

namespace {

PolicyReply ToolReply() {
  PolicyReply r;
  r.kind = RequestKind::kRollout1;
  r.reasoning = "Let me read the file first. Ünïcödé → fine.";
  r.tool_calls.push_back({"call_abc", "editor", R"({"command":"view","path":"/repo/pkg/config.py"})"});
  r.finish_reason = "tool_calls";
  return r;
}

WireContext Ctx(ReasoningMode mode, bool usage = true) {
  WireContext c;
  c.completion_id = "chatcmpl-test";
  c.created = 1767225600;
  c.model = "seragen-scripted-teacher (not a model)";
  c.prompt_tokens = 1234;
  c.reasoning = mode;
  c.include_usage = usage;
  c.piece_bytes = 7;
  return c;
}

struct Assembled {
  std::string role, content, reasoning, reasoning_field, finish_reason;
  std::vector<json> tool_calls;  // {id, name, arguments}
  json usage;
  bool done = false;
  bool error = false;
};

// Client-side SSE assembly following the f4 rules: "data: " events separated by a blank
// line, [DONE] last, tool calls keyed by index with id/name on the first delta.
Assembled AssembleSse(const std::string& stream) {
  Assembled a;
  std::size_t pos = 0;
  while (pos < stream.size()) {
    std::size_t end = stream.find("\n\n", pos);
    REQUIRE(end != std::string::npos);  // every event ends with a blank line
    std::string event = stream.substr(pos, end - pos);
    pos = end + 2;
    REQUIRE(event.rfind("data: ", 0) == 0);
    REQUIRE(event.find('\n') == std::string::npos);  // one data line per event
    std::string data = event.substr(6);
    REQUIRE_FALSE(a.done);  // nothing after [DONE]
    if (data == "[DONE]") {
      a.done = true;
      continue;
    }
    json chunk = json::parse(data);
    if (chunk.contains("error")) {
      a.error = true;
      continue;
    }
    CHECK(chunk["object"] == "chat.completion.chunk");
    CHECK(chunk["id"] == "chatcmpl-test");
    if (chunk.contains("usage") && !chunk["usage"].is_null()) {
      CHECK(chunk["choices"].empty());
      a.usage = chunk["usage"];
      continue;
    }
    REQUIRE(chunk["choices"].size() == 1);
    const json& choice = chunk["choices"][0];
    const json& delta = choice["delta"];
    if (delta.contains("role")) a.role = delta["role"];
    if (delta.contains("content") && delta["content"].is_string()) a.content += delta["content"].get<std::string>();
    for (const char* f : {"reasoning", "reasoning_content"}) {
      if (delta.contains(f)) {
        a.reasoning += delta[f].get<std::string>();
        a.reasoning_field = f;
      }
    }
    if (delta.contains("tool_calls")) {
      for (const json& tc : delta["tool_calls"]) {
        std::size_t index = tc["index"].get<std::size_t>();
        if (index == a.tool_calls.size()) {
          REQUIRE(tc.contains("id"));  // first delta of an index carries id, type and name
          CHECK(tc["type"] == "function");
          a.tool_calls.push_back({{"id", tc["id"]}, {"name", tc["function"]["name"]}, {"arguments", ""}});
        }
        REQUIRE(index < a.tool_calls.size());
        if (tc.contains("function") && tc["function"].contains("arguments")) {
          a.tool_calls[index]["arguments"] =
              a.tool_calls[index]["arguments"].get<std::string>() + tc["function"]["arguments"].get<std::string>();
        }
      }
    }
    if (!choice["finish_reason"].is_null()) a.finish_reason = choice["finish_reason"];
  }
  return a;
}

std::string Join(const std::vector<std::string>& events) {
  std::string s;
  for (const auto& e : events) s += e;
  return s;
}

}  // namespace

TEST_CASE("Non-stream tool-call response has the OpenAI shape (fixtures f1)") {
  json body = json::parse(RenderCompletion(ToolReply(), Ctx(ReasoningMode::kReasoning)));
  CHECK(body["object"] == "chat.completion");
  CHECK(body["id"] == "chatcmpl-test");
  CHECK(body["created"] == 1767225600);
  const json& choice = body["choices"][0];
  CHECK(choice["index"] == 0);
  CHECK(choice["finish_reason"] == "tool_calls");
  const json& msg = choice["message"];
  CHECK(msg["role"] == "assistant");
  CHECK(msg["content"].is_null());
  const json& tc = msg["tool_calls"][0];
  CHECK(tc["id"] == "call_abc");
  CHECK(tc["type"] == "function");
  CHECK(tc["function"]["name"] == "editor");
  REQUIRE(tc["function"]["arguments"].is_string());  // a JSON string, not an object
  CHECK(json::parse(tc["function"]["arguments"].get<std::string>())["command"] == "view");
  CHECK(body["usage"]["prompt_tokens"] == 1234);
  CHECK(body["usage"]["total_tokens"] ==
        body["usage"]["prompt_tokens"].get<int>() + body["usage"]["completion_tokens"].get<int>());
}

TEST_CASE("Reasoning lands in reasoning, reasoning_content or a leading <think> block (fixtures f2)") {
  PolicyReply r = ToolReply();
  json a = json::parse(RenderCompletion(r, Ctx(ReasoningMode::kReasoning)))["choices"][0]["message"];
  CHECK(a["reasoning"] == r.reasoning);
  CHECK_FALSE(a.contains("reasoning_content"));
  json b = json::parse(RenderCompletion(r, Ctx(ReasoningMode::kReasoningContent)))["choices"][0]["message"];
  CHECK(b["reasoning_content"] == r.reasoning);
  CHECK_FALSE(b.contains("reasoning"));
  json c = json::parse(RenderCompletion(r, Ctx(ReasoningMode::kThinkTag)))["choices"][0]["message"];
  CHECK(c["content"] == "<think>" + r.reasoning + "</think>\n");
  json d = json::parse(RenderCompletion(r, Ctx(ReasoningMode::kNone)))["choices"][0]["message"];
  CHECK(d["content"] == r.reasoning);
  CHECK_FALSE(d.contains("reasoning"));
}

TEST_CASE("Streams obey the SSE rules and assemble to the non-stream message (fixtures f4)") {
  for (ReasoningMode mode :
       {ReasoningMode::kNone, ReasoningMode::kReasoning, ReasoningMode::kReasoningContent, ReasoningMode::kThinkTag}) {
    PolicyReply r = ToolReply();
    std::vector<std::string> events = RenderStream(r, Ctx(mode));
    CHECK(events.back() == "data: [DONE]\n\n");
    Assembled a = AssembleSse(Join(events));
    json full = json::parse(RenderCompletion(r, Ctx(mode)))["choices"][0]["message"];
    CHECK(a.done);
    CHECK(a.role == "assistant");
    CHECK(a.finish_reason == "tool_calls");
    REQUIRE(a.tool_calls.size() == 1);
    CHECK(a.tool_calls[0]["arguments"] == full["tool_calls"][0]["function"]["arguments"]);
    CHECK(a.tool_calls[0]["id"] == "call_abc");
    CHECK(a.content == (full["content"].is_null() ? "" : full["content"].get<std::string>()));
    if (mode == ReasoningMode::kReasoning || mode == ReasoningMode::kReasoningContent) {
      CHECK(a.reasoning == r.reasoning);  // multi-byte characters survive the piece splitting
    }
    CHECK(a.usage["prompt_tokens"] == 1234);
  }
  // Without include_usage there is no usage chunk.
  Assembled no_usage = AssembleSse(Join(RenderStream(ToolReply(), Ctx(ReasoningMode::kReasoning, false))));
  CHECK(no_usage.usage.is_null());
}

TEST_CASE("Mid-stream errors use the nested error envelope (fixtures f8)") {
  json e = json::parse(RenderStreamError("boom").substr(6));
  CHECK(e["error"]["message"] == "boom");
  CHECK(e["error"]["type"] == "server_error");
  std::vector<std::string> events = RenderStream(ToolReply(), Ctx(ReasoningMode::kReasoning));
  std::string cut = events[0] + events[1] + RenderStreamError("boom");
  Assembled a = AssembleSse(cut);
  CHECK(a.error);
  CHECK_FALSE(a.done);
}

TEST_CASE("Error bodies: OpenAI envelope, vLLM context overflow wording, models list") {
  json err = json::parse(RenderError("slow down", "rate_limit_exceeded", 429));
  CHECK(err["error"]["message"] == "slow down");
  CHECK(err["error"]["code"] == 429);
  json overflow = json::parse(RenderContextOverflow(4096, 5000));
  std::string msg = overflow["error"]["message"];
  CHECK(msg.find("maximum context length") != std::string::npos);  // an f5 overflow wording
  CHECK(msg.find("4096") != std::string::npos);
  json models = json::parse(RenderModels("m-id", 8192, 1));
  CHECK(models["object"] == "list");
  CHECK(models["data"][0]["id"] == "m-id");
  CHECK(models["data"][0]["max_model_len"] == 8192);
}

TEST_CASE("Glitches: raw markup, invalid JSON arguments, two calls, never on text replies") {
  PolicyKnobs k;
  k.raw_markup_rate = 1;
  for (RawMarkupStyle style : {RawMarkupStyle::kHermes, RawMarkupStyle::kQwenXml, RawMarkupStyle::kGlm}) {
    k.raw_markup_style = style;
    PolicyReply raw = ApplyGlitches(ToolReply(), k, 1);
    CHECK(raw.tool_calls.empty());
    CHECK(raw.finish_reason == "stop");
    CHECK(raw.content.find("<tool_call>") != std::string::npos);
    CHECK(raw.content.find("view") != std::string::npos);
    json body = json::parse(RenderCompletion(raw, Ctx(ReasoningMode::kReasoning)));
    CHECK_FALSE(body["choices"][0]["message"].contains("tool_calls"));
  }
  PolicyKnobs bad;
  bad.invalid_json_rate = 1;
  PolicyReply invalid = ApplyGlitches(ToolReply(), bad, 1);
  REQUIRE(invalid.tool_calls.size() == 1);
  CHECK(json::parse(invalid.tool_calls[0].arguments, nullptr, false).is_discarded());
  PolicyKnobs multi;
  multi.multi_call_rate = 1;
  PolicyReply two = ApplyGlitches(ToolReply(), multi, 1);
  REQUIRE(two.tool_calls.size() == 2);
  CHECK(two.tool_calls[0].id != two.tool_calls[1].id);
  Assembled a = AssembleSse(Join(RenderStream(two, Ctx(ReasoningMode::kReasoning))));
  CHECK(a.tool_calls.size() == 2);
  PolicyReply text;
  text.content = "<answer>yes</answer>";
  CHECK(ApplyGlitches(text, k, 1).content == text.content);
  // Rates in between: a seeded mix.
  PolicyKnobs mix;
  mix.raw_markup_rate = 0.3;
  mix.invalid_json_rate = 0.3;
  int raw_count = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    if (ApplyGlitches(ToolReply(), mix, seed).tool_calls.empty()) ++raw_count;
  }
  CHECK(raw_count > 30);
  CHECK(raw_count < 90);
}
