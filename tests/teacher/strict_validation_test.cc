#include "teacher/strict_validation.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace seragen::teacher {
namespace {

using nlohmann::json;

json Base() {
  return json{{"model", "m"},
              {"messages", json::array({json{{"role", "user"}, {"content", "fix it"}}})},
              {"tools", json::array({json{{"type", "function"},
                                          {"function", {{"name", "bash"}, {"parameters", {{"type", "object"}}}}}}})},
              {"tool_choice", "auto"},
              {"max_tokens", 512},
              {"temperature", 0.6},
              {"seed", 12345}};
}

Rejection MustReject(const json& body, const StrictOptions& o) {
  auto r = ValidateStrict(body.dump(), o);
  REQUIRE(r.has_value());
  return *r;
}

}  // namespace

TEST_CASE("strict modes accept an ordinary request", "[teacher][strict]") {
  for (StrictMode m : {StrictMode::kVllm, StrictMode::kSglang, StrictMode::kLlamaCpp}) {
    CHECK_FALSE(ValidateStrict(Base().dump(), {m, true, "m"}).has_value());
  }
  json openai = Base();
  openai.erase("max_tokens");
  openai["max_completion_tokens"] = 512;
  CHECK_FALSE(ValidateStrict(openai.dump(), {StrictMode::kOpenAI, true, "gpt-4.1"}).has_value());
}

TEST_CASE("vllm: seed outside int64, empty tools, stream_options without stream, nested envelope",
          "[teacher][strict]") {
  StrictOptions o{StrictMode::kVllm, true, "m"};
  json b = Base();
  b["seed"] = 13390331474070314677ULL;
  Rejection r = MustReject(b, o);
  CHECK(r.status == 400);
  CHECK(r.message.find("Input should be less than or equal to 9223372036854775807") != std::string::npos);
  json env = json::parse(r.body);
  CHECK(env["error"]["type"] == "BadRequestError");
  CHECK(env["error"]["param"] == "body.seed");
  b = Base();
  b["tools"] = json::array();
  CHECK(MustReject(b, o).message.find("`tools` must not be an empty array") == 0);
  b = Base();
  b["stream_options"] = {{"include_usage", true}};
  CHECK(MustReject(b, o).message == "Stream options can only be defined when `stream=True`.");
  b = Base();
  b["top_p"] = 0;
  CHECK(MustReject(b, o).message == "top_p must be in (0, 1], got 0.");
  b = Base();
  b["temperature"] = 2.5;
  CHECK(MustReject(b, o).message == "temperature must be in [0, 2], got 2.5.");
}

TEST_CASE("sglang: flat envelope", "[teacher][strict]") {
  json b = Base();
  b["top_p"] = 0.0;
  Rejection r = MustReject(b, {StrictMode::kSglang, true, "m"});
  json env = json::parse(r.body);
  CHECK(env["object"] == "error");
  CHECK(env["message"] == "top_p must be in (0, 1], got 0.0.");
  CHECK(env["code"] == 400);
}

TEST_CASE("llamacpp: tools without --jinja is a 500 server_error", "[teacher][strict]") {
  Rejection r = MustReject(Base(), {StrictMode::kLlamaCpp, false, "m"});
  CHECK(r.status == 500);
  CHECK(json::parse(r.body) ==
        json::parse(R"({"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}})"));
  json no_tools = Base();
  no_tools.erase("tools");
  no_tools.erase("tool_choice");
  CHECK_FALSE(ValidateStrict(no_tools.dump(), {StrictMode::kLlamaCpp, false, "m"}).has_value());
  json big = Base();
  big["max_tokens"] = 99999999999LL;
  Rejection r2 = MustReject(big, {StrictMode::kLlamaCpp, true, "m"});
  CHECK(r2.status == 400);
  CHECK(r2.message == "Field 'max_tokens': Value must be between -1 <= value <= 2147483647, but got 99999999999");
}

TEST_CASE("openai: reasoning model ids refuse max_tokens, non-default temperature, top_p, parallel_tool_calls",
          "[teacher][strict]") {
  StrictOptions o{StrictMode::kOpenAI, true, "o3-mini"};
  Rejection r = MustReject(Base(), o);
  CHECK(r.message ==
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.");
  json env = json::parse(r.body);
  CHECK(env["error"]["code"] == "unsupported_parameter");
  CHECK(env["error"]["param"] == "max_tokens");
  json b = Base();
  b.erase("max_tokens");
  b["max_completion_tokens"] = 10;
  CHECK(MustReject(b, o).message.find("Unsupported value: 'temperature' does not support 0.6 with this model.") == 0);
  b.erase("temperature");
  b["parallel_tool_calls"] = false;
  CHECK(MustReject(b, o).message == "Unsupported parameter: 'parallel_tool_calls' is not supported with this model.");
  b.erase("parallel_tool_calls");
  CHECK_FALSE(ValidateStrict(b.dump(), o).has_value());
  b["top_k"] = 20;
  CHECK(MustReject(b, o).message == "Unrecognized request argument supplied: top_k");
  b.erase("top_k");
  b["max_tokens"] = 10;
  CHECK(MustReject(b, o).message ==
        "Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported.");
}

TEST_CASE("strict modes parse, detection signs per mode", "[teacher][strict]") {
  CHECK(ParseStrictMode("llamacpp").value() == StrictMode::kLlamaCpp);
  CHECK_FALSE(ParseStrictMode("tgi").ok());
  CHECK(ServerHeaderFor(StrictMode::kLlamaCpp) == "llama.cpp");
  CHECK(OwnedByFor(StrictMode::kSglang) == "sglang");
  CHECK(OwnedByFor(StrictMode::kVllm) == "vllm");
  CHECK(OwnedByFor(StrictMode::kLlamaCpp) == "llamacpp");
  CHECK(OwnedByFor(StrictMode::kOpenAI) == "system");
  CHECK(OwnedByFor(StrictMode::kOff) == "vllm");
  for (const char* name : {"off", "vllm", "sglang", "llamacpp", "openai"}) {
    CHECK(StrictModeName(ParseStrictMode(name).value()) == name);
  }
}

}  // namespace seragen::teacher
