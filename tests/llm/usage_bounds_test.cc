// Issue 28, finding 9: token counts a server reports are believed only when
// they can be true; anything else is a server fault, so a hostile `usage`
// can neither switch budgets off nor wrap the totals.
#include <catch2/catch.hpp>

#include <string>

#include "llm/chat_test_harness.h"
#include "seragen/llm/failure.h"
#include "seragen/llm/sse_assembler.h"
#include "seragen/llm/wire_codec.h"

namespace seragen::llm {
namespace {

std::string BodyWithUsage(const std::string& usage) {
  return R"({"id":"x","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi"}}],)"
         R"("usage":)" +
         usage + "}";
}

Result<ChatResponse> StreamWithUsage(const std::string& usage) {
  SseAssembler a;
  a.Feed("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n");
  a.Feed("data: {\"choices\":[],\"usage\":" + usage + "}\n\ndata: [DONE]\n\n");
  return a.Finish();
}

}  // namespace

TEST_CASE("impossible token counts are a server fault naming the field", "[llm][codec][usage][bounds]") {
  const std::pair<const char*, const char*> bad[] = {
      {R"({"prompt_tokens":1e30,"completion_tokens":5})", "usage.prompt_tokens is 1e+30"},
      {R"({"prompt_tokens":-7,"completion_tokens":5})", "usage.prompt_tokens is -7"},
      {R"({"prompt_tokens":12.5,"completion_tokens":5})", "usage.prompt_tokens is 12.5"},
      {R"({"prompt_tokens":10,"completion_tokens":"64"})", "usage.completion_tokens is \"64\""},
      {R"({"prompt_tokens":10,"completion_tokens":9007199254740993})", "usage.completion_tokens is 9007199254740993"},
      {R"({"prompt_tokens":10,"completion_tokens":5,"total_tokens":-9223372036854775808})", "usage.total_tokens is"},
  };
  for (const auto& [usage, says] : bad) {
    INFO(usage);
    auto plain = DecodeChatResponse(BodyWithUsage(usage));
    REQUIRE_FALSE(plain.ok());
    CHECK(FailureClassOf(plain.status()) == FailureClass::kTransientServer);
    CHECK(plain.status().message().find(says) != std::string::npos);
    auto streamed = StreamWithUsage(usage);
    REQUIRE_FALSE(streamed.ok());
    CHECK(FailureClassOf(streamed.status()) == FailureClass::kTransientServer);
    CHECK(streamed.status().message().find(says) != std::string::npos);
  }
}

TEST_CASE("believable token counts are read as before", "[llm][codec][usage][bounds]") {
  auto r = DecodeChatResponse(BodyWithUsage(R"({"prompt_tokens":9007199254740992,"completion_tokens":3.0})"));
  REQUIRE(r.ok());
  CHECK(r->usage.prompt_tokens == 9007199254740992);
  CHECK(r->usage.completion_tokens == 3);
  CHECK(r->usage.total_tokens == 9007199254740995);
  auto nulls = DecodeChatResponse(BodyWithUsage(R"({"prompt_tokens":null,"completion_tokens":4})"));
  REQUIRE(nulls.ok());
  CHECK(nulls->usage.prompt_tokens == 0);
  CHECK(nulls->usage.total_tokens == 4);
}

TEST_CASE("a server that keeps sending impossible usage fails the call after its retries", "[llm][client][usage]") {
  ChatClientOptions o;
  o.retry.max_attempts = 3;
  testing::ChatHarness h(o);
  h.server().SetHandler([](const testing::ReceivedRequest&) {
    return testing::ScriptedReply::Json(200, BodyWithUsage(R"({"prompt_tokens":1e30,"completion_tokens":1})"));
  });
  auto r = h.Call(testing::SimpleRequest());
  REQUIRE_FALSE(r.ok());
  CHECK(FailureClassOf(r.status()) == FailureClass::kTransientServer);
  CHECK(h.server().request_count() == 3);
}

TEST_CASE("the SSE assembler stops at its byte cap", "[llm][sse][bounds]") {
  SseAssembler a(1000);
  const std::string event =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + std::string(300, 'x') + "\"}}]}\n\n";
  bool alive = true;
  for (int i = 0; i < 10 && alive; ++i) alive = a.Feed(event);
  CHECK_FALSE(alive);
  auto r = a.Finish();
  REQUIRE_FALSE(r.ok());
  CHECK(FailureClassOf(r.status()) == FailureClass::kTransientServer);
  CHECK(r.status().message().find("cap of 1000 bytes") != std::string::npos);
}

}  // namespace seragen::llm
