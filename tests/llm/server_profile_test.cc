#include "seragen/llm/server_profile.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>

#include "seragen/llm/failure.h"

namespace seragen::llm {
namespace {
using nlohmann::json;
using F = WireOptions::ReasoningField;
using M = WireOptions::MaxTokensField;
using P = WireOptions::ParallelToolCalls;

ChatRequest ToolRequest() {
  ChatRequest req;
  req.model = "o3-mini";
  req.messages.push_back({Role::kUser, "fix it"});
  req.tools.push_back({"bash", "Run", R"({"type":"object","properties":{"command":{"type":"string"}}})"});
  req.tool_choice.mode = ToolChoice::Mode::kAuto;
  req.sampling.temperature = 0.6;
  req.sampling.top_p = 0.95;
  req.max_tokens = 512;
  req.seed = 42;
  return req;
}

json Encode(const ChatRequest& req, const WireOptions& w) {
  auto body = EncodeChatRequest(req, w);
  REQUIRE(body.ok());
  return json::parse(*body);
}
}  // namespace

TEST_CASE("server kinds parse and print, auto is not a kind", "[llm][profile]") {
  for (const char* name : {"generic", "vllm", "sglang", "llamacpp", "openai", "openrouter"}) {
    auto k = ParseServerKind(name);
    REQUIRE(k.ok());
    CHECK(ServerKindName(*k) == name);
  }
  CHECK_FALSE(ParseServerKind("auto").ok());
  CHECK_FALSE(ParseServerKind("VLLM").ok());
}

TEST_CASE("OpenAI reasoning model ids", "[llm][profile]") {
  for (const char* id : {"o1", "o1-mini", "o3", "o3-mini", "o4-mini", "gpt-5", "gpt-5.1-codex", "openai/o3"}) {
    INFO(id);
    CHECK(IsOpenAiReasoningModel(id));
  }
  for (const char* id : {"gpt-4.1", "gpt-4o-mini", "omni", "GLM-4.6", "o", ""}) {
    INFO(id);
    CHECK_FALSE(IsOpenAiReasoningModel(id));
  }
}

TEST_CASE("profile defaults follow what each server accepts", "[llm][profile]") {
  WireOptions vllm = ProfileDefaults(ServerKind::kVllm, "GLM-4.6");
  CHECK(vllm.reasoning_field == F::kReasoning);
  CHECK(vllm.parallel_tool_calls == P::kFalse);
  CHECK(vllm.max_tokens_field == M::kMaxTokens);
  CHECK(vllm.send_sampling);
  WireOptions sglang = ProfileDefaults(ServerKind::kSglang, "GLM-4.6");
  CHECK(sglang.reasoning_field == F::kReasoningContent);
  CHECK(sglang.parallel_tool_calls == P::kOmit);
  WireOptions llama = ProfileDefaults(ServerKind::kLlamaCpp, "qwen.gguf");
  CHECK(llama.reasoning_field == F::kReasoningContent);
  CHECK(llama.max_tokens_field == M::kMaxTokens);
  WireOptions o3 = ProfileDefaults(ServerKind::kOpenAI, "o3-mini");
  CHECK(o3.max_tokens_field == M::kMaxCompletionTokens);
  CHECK_FALSE(o3.send_sampling);
  CHECK(o3.parallel_tool_calls == P::kOmit);
  CHECK(o3.reasoning_field == F::kOmit);
  WireOptions gpt41 = ProfileDefaults(ServerKind::kOpenAI, "gpt-4.1");
  CHECK(gpt41.send_sampling);
  CHECK(gpt41.parallel_tool_calls == P::kFalse);
  WireOptions generic = ProfileDefaults(ServerKind::kGeneric, "x");
  CHECK(generic.parallel_tool_calls == P::kOmit);
  CHECK(generic.max_tokens_field == M::kMaxTokens);
}

TEST_CASE("explicit user settings win over the profile", "[llm][profile]") {
  RequestOverrides o;
  o.max_tokens_field = M::kMaxTokens;
  o.send_sampling = true;
  o.reasoning_field = F::kBoth;
  WireOptions w = ResolveWireOptions(ServerKind::kOpenAI, "o3-mini", o);
  CHECK(w.max_tokens_field == M::kMaxTokens);
  CHECK(w.send_sampling);
  CHECK(w.reasoning_field == F::kBoth);
  CHECK(w.parallel_tool_calls == P::kOmit);  // not overridden: profile value
  CHECK(DescribeWireOptions(w).find("max_tokens ") != std::string::npos);
}

TEST_CASE("encoding per profile: one max-tokens name, sampling omitted, parallel_tool_calls only with tools",
          "[llm][profile][codec]") {
  ChatRequest req = ToolRequest();
  json o3 = Encode(req, ProfileDefaults(ServerKind::kOpenAI, "o3-mini"));
  CHECK(o3["max_completion_tokens"] == 512);
  CHECK_FALSE(o3.contains("max_tokens"));
  CHECK_FALSE(o3.contains("temperature"));
  CHECK_FALSE(o3.contains("top_p"));
  CHECK_FALSE(o3.contains("parallel_tool_calls"));
  CHECK(o3["seed"] == 42);
  json vllm = Encode(req, ProfileDefaults(ServerKind::kVllm, "m"));
  CHECK(vllm["max_tokens"] == 512);
  CHECK_FALSE(vllm.contains("max_completion_tokens"));
  CHECK(vllm["temperature"] == 0.6);
  CHECK(vllm["parallel_tool_calls"] == false);
  // Without tools: no tools key, no tool_choice, no parallel_tool_calls.
  req.tools.clear();
  json plain = Encode(req, ProfileDefaults(ServerKind::kVllm, "m"));
  CHECK_FALSE(plain.contains("tools"));
  CHECK_FALSE(plain.contains("tool_choice"));
  CHECK_FALSE(plain.contains("parallel_tool_calls"));
  CHECK_FALSE(plain.contains("stream_options"));
}

TEST_CASE("extra_body cannot bring back what the profile keeps out", "[llm][profile][codec]") {
  ChatRequest req = ToolRequest();
  req.extra_body_json = R"({"stream_options":{"include_usage":true},"tools":[]})";
  WireOptions w = ProfileDefaults(ServerKind::kOpenAI, "o3-mini");
  json body = Encode(req, w);
  CHECK_FALSE(body.contains("stream_options"));
  CHECK_FALSE(body.contains("tools"));
  req.extra_body_json = R"({"max_tokens":100})";
  auto both = EncodeChatRequest(req, w);
  REQUIRE_FALSE(both.ok());
  CHECK(both.status().message().find("never both") != std::string::npos);
}

TEST_CASE("empty tool_calls are never sent in history", "[llm][codec]") {
  ChatRequest req;
  req.model = "m";
  req.messages.push_back({Role::kUser, "hi"});
  req.messages.push_back({Role::kAssistant, "hello"});
  json body = Encode(req, {});
  CHECK_FALSE(body["messages"][1].contains("tool_calls"));
  CHECK(body["messages"][1]["content"] == "hello");
}

TEST_CASE("detection from facts, in the documented order", "[llm][profile][detect]") {
  struct Case {
    DetectionFacts facts;
    ServerKind kind;
  };
  const Case cases[] = {
      {{}, ServerKind::kGeneric},
      {{.server_header = "llama.cpp", .owned_by = "vllm"}, ServerKind::kLlamaCpp},  // the header wins
      {{.props_ok = true}, ServerKind::kLlamaCpp},
      {{.owned_by = "vllm"}, ServerKind::kVllm},
      {{.owned_by = "sglang"}, ServerKind::kSglang},
      {{.owned_by = "llamacpp"}, ServerKind::kLlamaCpp},
      {{.server_info_ok = true}, ServerKind::kSglang},
      {{.host = "openrouter.ai"}, ServerKind::kOpenRouter},
      {{.host = "api.openai.com", .owned_by = "system"}, ServerKind::kOpenAI},
      {{.host = "notapi.openai.com.evil", .owned_by = "system"}, ServerKind::kGeneric},
      {{.openrouter_shape = true}, ServerKind::kOpenRouter},
      {{.version_ok = true}, ServerKind::kVllm},
  };
  for (const Case& c : cases) {
    INFO(c.facts.host << " | " << c.facts.server_header << " | " << c.facts.owned_by);
    Detection d = DetectFromFacts(c.facts);
    CHECK(d.kind == c.kind);
    if (c.kind != ServerKind::kGeneric) CHECK_FALSE(d.evidence.empty());
  }
}

TEST_CASE(
    "endpoint headers: env references resolved, reserved names and control characters refused, values never in errors",
    "[llm][headers]") {
  ::setenv("SERAGEN_TEST_HDR", "from-env-secret", 1);
  auto ok = ResolveHeaders({{"X-Tenant", "plain"}, {"X-Token", "${SERAGEN_TEST_HDR}"}});
  REQUIRE(ok.ok());
  CHECK(ok->at(1).second.reveal() == "from-env-secret");
  ::unsetenv("SERAGEN_TEST_HDR");
  auto unset = ResolveHeaders({{"X-Token", "${SERAGEN_TEST_HDR}"}});
  REQUIRE_FALSE(unset.ok());
  CHECK(unset.status().message().find("SERAGEN_TEST_HDR") != std::string::npos);
  auto reserved = ResolveHeaders({{"Authorization", "Bearer sk-leak"}});
  REQUIRE_FALSE(reserved.ok());
  CHECK(reserved.status().message().find("sk-leak") == std::string::npos);
  auto injected = ResolveHeaders({{"X-A", "v\r\nX-Evil: 1"}});
  REQUIRE_FALSE(injected.ok());
  CHECK(injected.status().message().find("Evil") == std::string::npos);
  CHECK_FALSE(ResolveHeaders({{"Bad Name", "v"}}).ok());
  // Sent with the key, every value listed as a secret for request logs.
  EndpointOptions ep;
  ep.api_key = SecretString("sk-1");
  ep.headers = *ok;
  http::Request req;
  AddEndpointHeaders(ep, req);
  CHECK(req.headers.size() == 3);
  CHECK(req.secret_values.size() == 3);
  CHECK(http::DescribeForLog(req).find("from-env-secret") == std::string::npos);
}

TEST_CASE("server profiles: llm.server auto detects each endpoint, a kind name is used as is", "[llm][profile]") {
  std::vector<EndpointOptions> endpoints(2);
  endpoints[0].base_url = "http://a/v1";
  endpoints[1].base_url = "http://b/v1";
  std::vector<std::string> asked;
  const DetectFn detect = [&asked](const EndpointOptions& eo) -> Result<Detection> {
    asked.push_back(eo.base_url);
    if (eo.base_url == "http://a/v1") return Detection{ServerKind::kSglang, "owned_by sglang"};
    return MakeFailure(FailureClass::kTransientNetwork, "connection refused");
  };
  RequestOverrides overrides;
  overrides.send_sampling = false;
  std::string lines;
  {
    log::ScopedCapture capture(&lines);
    ResolveServerProfiles("auto", "GLM-4.6", overrides, detect, endpoints, log::Logger("test"));
  }
  CHECK(asked == std::vector<std::string>{"http://a/v1", "http://b/v1"});
  REQUIRE(endpoints[0].wire.has_value());
  REQUIRE(endpoints[1].wire.has_value());
  CHECK(DescribeWireOptions(*endpoints[0].wire) ==
        DescribeWireOptions(ResolveWireOptions(ServerKind::kSglang, "GLM-4.6", overrides)));
  CHECK_FALSE(endpoints[0].wire->send_sampling);  // the explicit setting wins over the profile
  CHECK(DescribeWireOptions(*endpoints[1].wire) ==
        DescribeWireOptions(ResolveWireOptions(ServerKind::kGeneric, "GLM-4.6", overrides)));
  CHECK(lines.find("endpoint http://a/v1: server sglang (detected: owned_by sglang)") != std::string::npos);
  CHECK(lines.find("endpoint http://b/v1: server generic (not detected (") != std::string::npos);
  // The log names the failure in words; its class is no tag in the text.
  CHECK(lines.find("(not detected (connection refused); set llm.server)") != std::string::npos);

  asked.clear();
  ResolveServerProfiles("llamacpp", "qwen.gguf", {}, detect, endpoints, log::Logger("test"));
  CHECK(asked.empty());
  CHECK(DescribeWireOptions(*endpoints[1].wire) ==
        DescribeWireOptions(ProfileDefaults(ServerKind::kLlamaCpp, "qwen.gguf")));
}

}  // namespace seragen::llm
