#include "seragen/llm/commands.h"

#include <catch2/catch.hpp>

#include "http/replay_server.h"
#include "llm/llm_fixtures.h"
#include "seragen/llm/failure.h"

namespace seragen::llm {

using testing::Fixture;
using testing::ReplayServer;
using testing::ScriptedReply;

namespace {

// Ping or chat options for o3-mini behind the OpenAI profile at `server`.
template <typename Options>
Options OpenAiO3Mini(const ReplayServer& server) {
  Options options;
  options.base_url = server.base_url();
  options.server = "openai";
  options.model = "o3-mini";
  return options;
}

}  // namespace

TEST_CASE("llm ping: models, context window, latency", "[llm][commands]") {
  ReplayServer server;
  server.Enqueue("/v1/models", ScriptedReply::Json(200, Fixture("models/f9b_vllm.json")));
  PingOptions options;
  options.base_url = server.base_url();
  auto report = PingEndpoint(options);
  REQUIRE(report.ok());
  CHECK(report->base_url == server.base_url() + "/v1");
  CHECK(report->models.server_kind == "vllm");
  CHECK(report->latency.count() > 0);
  std::string text = FormatPingReport(*report);
  CHECK(text.find("zai-org/GLM-4.5-Air") != std::string::npos);
  CHECK(text.find("131072 (max_model_len)") != std::string::npos);
  CHECK(text.find("parent=zai-org/GLM-4.5-Air") != std::string::npos);
  // The profile it detected and the settings a run would use.
  CHECK(report->server == "vllm");
  CHECK(text.find("profile    vllm (detected: /models owned_by vllm") != std::string::npos);
  CHECK(text.find("parallel_tool_calls false") != std::string::npos);
}

TEST_CASE("llm ping: a configured profile shows its settings for the model", "[llm][commands]") {
  ReplayServer server;
  server.Enqueue("/v1/models", ScriptedReply::Json(200, Fixture("models/f9a_openai.json")));
  auto report = PingEndpoint(OpenAiO3Mini<PingOptions>(server));
  REQUIRE(report.ok());
  std::string text = FormatPingReport(*report);
  CHECK(text.find("max_completion_tokens") != std::string::npos);
  CHECK(text.find("sampling fields     omit") != std::string::npos);
}

TEST_CASE("llm ping: llama.cpp served context comes from /props", "[llm][commands]") {
  ReplayServer server;
  server.Enqueue("/v1/models", ScriptedReply::Json(200, Fixture("models/f9d_llamacpp.json")));
  server.Enqueue("/props", ScriptedReply::Json(200, Fixture("models/llamacpp_props.json")));
  PingOptions options;
  options.base_url = server.base_url() + "/v1";
  auto report = PingEndpoint(options);
  REQUIRE(report.ok());
  CHECK(report->props_context == std::optional<std::int64_t>(8192));
  CHECK(FormatPingReport(*report).find("8192 (/props n_ctx)") != std::string::npos);
}

TEST_CASE("llm ping failures are tagged and name the endpoint", "[llm][commands]") {
  ReplayServer server;
  server.Enqueue("/v1/models", ScriptedReply::Json(401, R"({"error":{"message":"bad key"}})"));
  PingOptions options;
  options.base_url = server.base_url();
  auto report = PingEndpoint(options);
  REQUIRE_FALSE(report.ok());
  CHECK(FailureClassOf(report.status()) == FailureClass::kConfig);
  CHECK(report.status().message().find(server.base_url()) != std::string::npos);
  options.api_key_env = "SERAGEN_UNSET_VARIABLE_FOR_TEST";
  auto missing = PingEndpoint(options);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("SERAGEN_UNSET_VARIABLE_FOR_TEST") != std::string::npos);
}

TEST_CASE("llm chat: picks the served model and prints the answer", "[llm][commands]") {
  ReplayServer server;
  server.Enqueue("/v1/models", ScriptedReply::Json(200, Fixture("models/f9c_sglang.json")));
  server.Enqueue("/v1/chat/completions", ScriptedReply::Json(200, Fixture("responses/f2c_think_in_content.json")));
  ChatCommandOptions options;
  options.base_url = server.base_url();
  options.prompt = "hi";
  auto report = RunChatCommand(options);
  REQUIRE(report.ok());
  CHECK(report->model == "GLM-4.6");
  std::string text = FormatChatReport(*report);
  CHECK(text.find("reasoning  (think_tag)") != std::string::npos);
  CHECK(text.find("I'll open the file.") != std::string::npos);
  auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].body.find("\"model\":\"GLM-4.6\"") != std::string::npos);
}

TEST_CASE("llm chat sends what the server profile accepts", "[llm][commands][profile]") {
  ReplayServer server;
  server.Enqueue("/v1/chat/completions", ScriptedReply::Json(200, Fixture("responses/f1a_openai_tool_call.json")));
  auto options = OpenAiO3Mini<ChatCommandOptions>(server);
  options.prompt = "hi";
  auto report = RunChatCommand(options);
  REQUIRE(report.ok());
  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].body.find("\"max_completion_tokens\":512") != std::string::npos);
  CHECK(requests[0].body.find("\"max_tokens\"") == std::string::npos);
}

TEST_CASE("llm chat streaming", "[llm][commands]") {
  ReplayServer server;
  server.Enqueue("/v1/chat/completions", ScriptedReply::Sse({Fixture("streams/openrouter_comments.sse")}));
  ChatCommandOptions options;
  options.base_url = server.base_url();
  options.model = "m";
  options.prompt = "hi";
  options.stream = true;
  auto report = RunChatCommand(options);
  REQUIRE(report.ok());
  CHECK(report->response.content == "Hello world");
  options.prompt.clear();
  CHECK_FALSE(RunChatCommand(options).ok());
}

}  // namespace seragen::llm
