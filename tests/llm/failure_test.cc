#include "seragen/llm/failure.h"

#include <catch2/catch.hpp>

#include "seragen/base/log.h"
#include "seragen/llm/endpoint_options.h"
#include "testing/fake_chat_client.h"

#include <cstdlib>

namespace seragen::llm {

TEST_CASE("failure class round-trips through a Status, also with context", "[llm][failure]") {
  for (FailureClass c :
       {FailureClass::kTransientNetwork, FailureClass::kRateLimited, FailureClass::kContextOverflow,
        FailureClass::kConfig, FailureClass::kQuota, FailureClass::kToolArgs, FailureClass::kCancelled}) {
    Status s = MakeFailure(c, "details");
    INFO(s.ToString());
    CHECK_FALSE(s.ok());
    CHECK(FailureClassOf(s) == c);
    CHECK(FailureClassOf(s.WithContext("rollout 1")) == c);
  }
  CHECK(MakeFailure(FailureClass::kQuota, "x").code() == StatusCode::kResourceExhausted);
  CHECK(MakeFailure(FailureClass::kCancelled, "x").code() == StatusCode::kCancelled);
  CHECK(FailureClassOf(Status()) == FailureClass::kNone);
  CHECK(FailureClassOf(InternalError("plain")) == FailureClass::kNone);
  CHECK(FailureClassOf(InternalError("[llm:nonsense] x")) == FailureClass::kNone);
}

TEST_CASE("failure class is a typed detail, not message text", "[llm][failure]") {
  Status s = MakeFailure(FailureClass::kRateLimited, "HTTP 429");
  CHECK(s.message() == "HTTP 429");
  CHECK(s.detail().category() == FailureCategory());
  CHECK(s.Text() == "[llm:rate_limited] HTTP 429");
  CHECK(s.ToString() == "UNAVAILABLE: [llm:rate_limited] HTTP 429");
  CHECK(s.WithContext("rollout 1").Text() == "[llm:rate_limited] rollout 1: HTTP 429");
  // A class written into the text by hand is only text.
  CHECK(FailureClassOf(FailedPreconditionError("[llm:config] bad field")) == FailureClass::kNone);
  // A copy that keeps the detail keeps the class whatever its message says.
  CHECK(FailureClassOf(Status(s.code(), "reworded", s.detail())) == FailureClass::kRateLimited);
  // A Status rebuilt from the text alone has no class, and another category's
  // value is not a class.
  CHECK(FailureClassOf(UnavailableError(s.ToString())) == FailureClass::kNone);
  CHECK(FailureClassOf(Status(s.code(), "x", std::error_code(s.detail().value(), std::generic_category()))) ==
        FailureClass::kNone);
  // The class travels in a Result like any Status.
  Result<ChatResponse> answer = s;
  CHECK(FailureClassOf(answer.status()) == FailureClass::kRateLimited);
  CHECK(MakeFailure(FailureClass::kNone, "odd").Text() == "[llm:none] odd");
}

TEST_CASE("endpoint options: URL normalisation and errors", "[llm][endpoint]") {
  CHECK(NormalizeBaseUrl("http://localhost:8000").value() == "http://localhost:8000/v1");
  CHECK(NormalizeBaseUrl("http://localhost:8000/").value() == "http://localhost:8000/v1");
  CHECK(NormalizeBaseUrl("https://openrouter.ai/api/v1/").value() == "https://openrouter.ai/api/v1");
  CHECK_FALSE(NormalizeBaseUrl("localhost:8000").ok());
  CHECK_FALSE(NormalizeBaseUrl("ftp://h/v1").ok());
  CHECK_FALSE(NormalizeBaseUrl("http:///v1").ok());
  CHECK(ServerRoot("http://h:1/v1") == "http://h:1");
}

TEST_CASE("API key from an environment variable: registered as a secret, never printed", "[llm][endpoint]") {
  ::setenv("SERAGEN_TEST_KEY_VAR", "sk-live-abcdef123456", 1);
  std::string captured;
  {
    log::ScopedCapture capture(&captured);
    auto options = MakeEndpointOptions("http://h:8000", "SERAGEN_TEST_KEY_VAR");
    REQUIRE(options.ok());
    CHECK(options->api_key.reveal() == "sk-live-abcdef123456");
    log::Logger("llm").Info("using key sk-live-abcdef123456");
  }
  CHECK(captured.find("sk-live-abcdef123456") == std::string::npos);
  CHECK(captured.find("***") != std::string::npos);
  ::unsetenv("SERAGEN_TEST_KEY_VAR");
  auto missing = MakeEndpointOptions("http://h:8000", "SERAGEN_TEST_KEY_VAR");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("SERAGEN_TEST_KEY_VAR") != std::string::npos);
  auto none = MakeEndpointOptions("http://h:8000", "");
  REQUIRE(none.ok());
  CHECK(none->api_key.empty());
}

TEST_CASE("FakeChatClient replays its script, then the handler", "[llm][fake]") {
  FakeChatClient fake;
  fake.PushResponse(MakeToolCallResponse("bash", R"({"command":"ls"})"));
  fake.PushFailure(FailureClass::kRateLimited, "slow down");
  fake.PushResponse(MakeToolCallResponse("bash", R"({"command":)"));
  std::vector<Result<ChatResponse>> got;
  ChatRequest req;
  req.model = "m";
  for (int i = 0; i < 4; ++i) {
    fake.Complete(req, {}, [&](Result<ChatResponse> r) { got.push_back(std::move(r)); });
  }
  REQUIRE(got.size() == 4);
  CHECK(got[0]->tool_calls[0].arguments_valid);
  CHECK(FailureClassOf(got[1].status()) == FailureClass::kRateLimited);
  CHECK(got[2]->tool_issue == ToolIssue::kToolArgs);
  CHECK(FailureClassOf(got[3].status()) == FailureClass::kTransientServer);  // script ran out
  fake.SetHandler([](const ChatRequest& r) -> Result<ChatResponse> { return MakeTextResponse("echo " + r.model); });
  fake.Complete(req, {}, [&](Result<ChatResponse> r) { got.push_back(std::move(r)); });
  CHECK(got.back()->content == "echo m");
  CHECK(fake.call_count() == 5);
  CHECK(fake.remaining() == 0);
  CHECK(MakeTextResponse("<think>a</think>b").reasoning == "a");
}

}  // namespace seragen::llm
