// Issue 28, findings 8 and 13: what a server sends without end (body, event
// stream, /models listing, headers) costs bounded memory and is a server
// fault naming the endpoint and the cap; a reply the HTTP layer cannot read
// is never a configuration error.
#include <catch2/catch.hpp>

#include "llm/chat_test_harness.h"
#include "seragen/llm/commands.h"
#include "seragen/llm/failure.h"

namespace seragen::llm {
namespace {

using testing::ChatHarness;
using testing::ScriptedReply;
using testing::SimpleRequest;

// About 64 MB/s, so a missing cap shows as a timeout, not as gigabytes.
ScriptedReply Endless(ScriptedReply r) {
  r.endless = true;
  r.chunk_interval = std::chrono::milliseconds(1);
  return r;
}

ChatClientOptions SmallCap() {
  ChatClientOptions o;
  o.max_response_bytes = 1 << 20;
  o.retry.max_attempts = 2;
  return o;
}

}  // namespace

TEST_CASE("an endless answer body fails as a server fault naming the endpoint and the cap", "[llm][client][bounds]") {
  ChatHarness h(SmallCap());
  h.server().SetHandler(
      [](const testing::ReceivedRequest&) { return Endless(ScriptedReply::Json(200, std::string(65536, ' '))); });
  auto r = h.Call(SimpleRequest());
  REQUIRE_FALSE(r.ok());
  CHECK(FailureClassOf(r.status()) == FailureClass::kTransientServer);
  const std::string& m = r.status().message();
  CHECK(m.find("1048576 bytes") != std::string::npos);
  CHECK(m.find("llm.max_response_bytes") != std::string::npos);
  CHECK(m.find(h.server().base_url()) != std::string::npos);
  CHECK(h.server().request_count() == 2);  // retried like any server fault
}

TEST_CASE("an endless event stream fails as a server fault at the same cap", "[llm][client][bounds]") {
  ChatHarness h(SmallCap());
  const std::string event =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + std::string(4000, 'x') + "\"}}]}\n\n";
  std::string piece;
  while (piece.size() < 65536) piece += event;
  h.server().SetHandler([piece](const testing::ReceivedRequest&) { return Endless(ScriptedReply::Sse({piece})); });
  CallOptions stream;
  stream.stream = true;
  auto r = h.Call(SimpleRequest(), stream);
  REQUIRE_FALSE(r.ok());
  CHECK(FailureClassOf(r.status()) == FailureClass::kTransientServer);
  CHECK(r.status().message().find("1048576 bytes") != std::string::npos);
  CHECK(r.status().message().find(h.server().base_url()) != std::string::npos);
}

TEST_CASE("an endless /models listing fails the probe at the probe cap", "[llm][client][bounds]") {
  testing::ReplayServer server;
  server.SetHandler([](const testing::ReceivedRequest&) {
    return Endless(ScriptedReply::Json(200, "{\"data\":[" + std::string(65536, ' ')));
  });
  PingOptions ping;
  ping.base_url = server.base_url() + "/v1";
  ping.server = "generic";
  ping.timeout = std::chrono::milliseconds(4000);
  auto r = PingEndpoint(ping);
  REQUIRE_FALSE(r.ok());
  CHECK(FailureClassOf(r.status()) == FailureClass::kTransientServer);
  CHECK(r.status().message().find(std::to_string(kMaxProbeBodyBytes) + " bytes") != std::string::npos);
  CHECK(r.status().message().find("/models") != std::string::npos);
}

TEST_CASE("a 200 answer with a header line longer than the client accepts is a server fault", "[llm][client][bounds]") {
  ChatHarness h(SmallCap());
  h.server().SetHandler([](const testing::ReceivedRequest&) {
    return ScriptedReply::Json(200, "{}", {{"X-Huge", std::string(300 * 1024, 'h')}});
  });
  auto r = h.Call(SimpleRequest());
  REQUIRE_FALSE(r.ok());
  CHECK(FailureClassOf(r.status()) == FailureClass::kTransientServer);
  CHECK(r.status().message().find("header line is longer than the HTTP client accepts") != std::string::npos);
}

TEST_CASE("under-reported Content-Length answers are server faults and never stop the run", "[llm][client][bounds]") {
  ChatClientOptions o = SmallCap();
  o.pool.eject_after_failures = 100;  // the endpoint stays in use: every call is answered the same way
  ChatHarness h(o);
  const std::string body = R"({"id":"x","choices":[{"index":0,"finish_reason":"stop","message":{"content":")" +
                           std::string(300, 'z') + "\"}}]}";
  h.server().SetHandler([body](const testing::ReceivedRequest&) {
    // 20 promised bytes, then the rest once the client reuses the connection.
    ScriptedReply r = ScriptedReply::Json(200, "");
    r.chunks = {body.substr(0, 20), body.substr(20)};
    r.chunk_interval = std::chrono::milliseconds(50);
    r.content_length = 20;
    return r;
  });
  for (int i = 0; i < 4; ++i) {
    auto r = h.Call(SimpleRequest());
    REQUIRE_FALSE(r.ok());
    INFO(r.status().ToString());
    CHECK(FailureClassOf(r.status()) == FailureClass::kTransientServer);
  }
  CHECK_FALSE(h.client->RunStopStatus().has_value());
}

}  // namespace seragen::llm
