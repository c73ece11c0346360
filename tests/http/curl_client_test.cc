#include "seragen/http/curl_client.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <future>
#include <memory>
#include <vector>

#include "http/http_test_util.h"
#include "http/replay_server.h"

namespace seragen::http {
namespace {

using testing::ReplayServer;
using testing::ScriptedReply;
using testing::SendAndWait;
using testing::WaitUntil;
using Action = ScriptedReply::Action;
using std::chrono::milliseconds;

Request Get(const std::string& url, milliseconds timeout = milliseconds(3000)) {
  Request r;
  r.url = url;
  r.timeout = timeout;
  return r;
}

// A replay server that answers every request with 200 "{}", and a client on
// its own event loop.
struct AnsweringServer {
  AnsweringServer() {
    server.SetHandler([](const testing::ReceivedRequest&) { return ScriptedReply::Json(200, "{}"); });
  }
  ReplayServer server;
  loop::EventLoop loop;
  CurlClient client{loop};
};

}  // namespace

TEST_CASE("GET returns status, lower-cased headers, body and timings", "[http][curl]") {
  ReplayServer server;
  server.Enqueue("/v1/models", ScriptedReply::Json(200, R"({"ok":true})", {{"X-Request-Id", "abc"}}));
  loop::EventLoop loop;
  CurlClient client(loop);
  Response r = SendAndWait(client, Get(server.base_url() + "/v1/models?x=1"));
  REQUIRE(r.transport_ok());
  CHECK(r.status == 200);
  CHECK(r.body == R"({"ok":true})");
  CHECK(r.FindHeader("x-request-id") == std::optional<std::string>("abc"));
  CHECK(r.FindHeader("X-REQUEST-ID") == std::optional<std::string>("abc"));
  CHECK_FALSE(r.FindHeader("missing").has_value());
  CHECK(r.timings.total.count() > 0);
  CHECK(r.timings.total >= r.timings.first_byte);
}

TEST_CASE("POST sends body and headers, error statuses are responses, not transport errors", "[http][curl]") {
  ReplayServer server;
  server.Enqueue("/v1/chat/completions", ScriptedReply::Json(429, R"({"error":{}})", {{"Retry-After", "3"}}));
  loop::EventLoop loop;
  CurlClient client(loop);
  Request req = Get(server.base_url() + "/v1/chat/completions");
  req.method = "POST";
  req.body = std::string(5000, 'x');  // larger than curl's 100-continue threshold
  req.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer sk-test"}};
  Response r = SendAndWait(client, req);
  REQUIRE(r.transport_ok());
  CHECK(r.status == 429);
  CHECK(r.FindHeader("retry-after") == std::optional<std::string>("3"));
  auto got = server.requests();
  REQUIRE(got.size() == 1);
  CHECK(got[0].method == "POST");
  CHECK(got[0].body.size() == 5000);
  CHECK(got[0].Header("authorization") == std::optional<std::string>("Bearer sk-test"));
  CHECK_FALSE(got[0].Header("expect").has_value());
}

TEST_CASE("streaming delivers 2xx body pieces through the callback", "[http][curl]") {
  ReplayServer server;
  server.Enqueue("/s", ScriptedReply::Sse({"data: a\n\n", "data: b\n\n", "data: [DONE]\n\n"}));
  server.Enqueue("/s", ScriptedReply::Json(500, "oops"));
  loop::EventLoop loop;
  CurlClient client(loop);
  std::string streamed;
  Request req = Get(server.base_url() + "/s");
  req.on_body_chunk = [&](std::string_view piece) {
    streamed.append(piece);
    return true;
  };
  Response r = SendAndWait(client, req);
  REQUIRE(r.transport_ok());
  CHECK(streamed == "data: a\n\ndata: b\n\ndata: [DONE]\n\n");
  CHECK(r.body.empty());
  streamed.clear();
  Response err = SendAndWait(client, req);
  CHECK(err.status == 500);
  CHECK(err.body == "oops");  // error bodies are kept for classification
  CHECK(streamed.empty());
}

TEST_CASE("a chunk callback returning false aborts the transfer", "[http][curl]") {
  ReplayServer server;
  server.Enqueue("/s", ScriptedReply::Sse({"data: a\n\n", "data: b\n\n"}));
  loop::EventLoop loop;
  CurlClient client(loop);
  Request req = Get(server.base_url() + "/s");
  req.on_body_chunk = [](std::string_view) { return false; };
  Response r = SendAndWait(client, req);
  CHECK(r.error == TransportError::kAborted);
}

TEST_CASE("sequential requests reuse one keep-alive connection", "[http][curl]") {
  AnsweringServer w;
  for (int i = 0; i < 5; ++i) {
    Response r = SendAndWait(w.client, Get(w.server.base_url() + "/x"));
    REQUIRE(r.status == 200);
  }
  CHECK(w.server.accepted_connections() == 1);
  CHECK(w.client.OpenSockets() == 1);
}

TEST_CASE("transport failures are classified", "[http][curl]") {
  ReplayServer server;
  loop::EventLoop loop;
  CurlClient client(loop);

  SECTION("connection reset after the request") {
    server.Enqueue("/r", ScriptedReply::WithAction(Action::kReset));
    Response r = SendAndWait(client, Get(server.base_url() + "/r"));
    CHECK(r.error == TransportError::kConnectionLost);
    CHECK_FALSE(r.error_message.empty());
  }
  SECTION("server accepts and never answers: the deadline fires") {
    server.Enqueue("/n", ScriptedReply::WithAction(Action::kNeverAnswer));
    Response r = SendAndWait(client, Get(server.base_url() + "/n", milliseconds(150)));
    CHECK(r.error == TransportError::kTimeout);
  }
  SECTION("server stalls mid-body: the deadline fires") {
    ScriptedReply stall = ScriptedReply::Json(200, "{\"partial\":");
    stall.action = Action::kStallMidBody;
    server.Enqueue("/st", stall);
    Response r = SendAndWait(client, Get(server.base_url() + "/st", milliseconds(150)));
    CHECK(r.error == TransportError::kTimeout);
    CHECK(r.status == 200);
  }
  SECTION("server closes mid-body") {
    ScriptedReply cut = ScriptedReply::Json(200, "{\"partial\":");
    cut.action = Action::kCloseMidBody;
    server.Enqueue("/c", cut);
    Response r = SendAndWait(client, Get(server.base_url() + "/c"));
    CHECK(r.error == TransportError::kConnectionLost);
  }
  SECTION("bad URL") {
    Response r = SendAndWait(client, Get("gopher://127.0.0.1/x"));
    CHECK(r.error == TransportError::kBadUrl);
  }
  // Whatever failed, no connection is left behind once the client is gone.
}

TEST_CASE("HTTPS is negotiated: a plain-HTTP peer fails the TLS handshake", "[http][curl]") {
  AnsweringServer w;
  Response r = SendAndWait(w.client, Get("https://127.0.0.1:" + std::to_string(w.server.port()) + "/v1/models"));
  CHECK(r.error == TransportError::kTls);
  CHECK(w.server.request_count() == 0);
}

TEST_CASE("connection refused", "[http][curl]") {
  int port = 0;
  {
    ReplayServer gone;
    port = gone.port();
  }
  loop::EventLoop loop;
  CurlClient client(loop);
  Response r = SendAndWait(client, Get("http://127.0.0.1:" + std::to_string(port) + "/"));
  CHECK(r.error == TransportError::kConnectFailed);
}

TEST_CASE("cancel stops an in-flight request and done runs once", "[http][curl]") {
  ReplayServer server;
  server.Enqueue("/n", ScriptedReply::WithAction(Action::kNeverAnswer));
  loop::EventLoop loop;
  CurlClient client(loop);
  std::atomic<int> calls{0};
  std::promise<Response> promise;
  auto call = client.Send(Get(server.base_url() + "/n", milliseconds(5000)), [&](Response r) {
    if (++calls == 1) promise.set_value(std::move(r));
  });
  REQUIRE(WaitUntil([&] { return server.request_count() == 1; }));
  call->Cancel();
  auto future = promise.get_future();
  REQUIRE(future.wait_for(std::chrono::seconds(2)) == std::future_status::ready);
  CHECK(future.get().error == TransportError::kCancelled);
  call->Cancel();  // no-op after completion
  loop.RunSync([] {});
  CHECK(calls == 1);
  CHECK(client.InFlight() == 0);
  CHECK(WaitUntil([&] { return server.open_connections() == 0; }));
}

TEST_CASE("destroying the client completes in-flight requests as cancelled and closes sockets", "[http][curl]") {
  ReplayServer server;
  server.SetHandler([](const testing::ReceivedRequest&) { return ScriptedReply::WithAction(Action::kNeverAnswer); });
  loop::EventLoop loop;
  std::atomic<int> cancelled{0};
  {
    CurlClient client(loop);
    for (int i = 0; i < 3; ++i) {
      client.Send(Get(server.base_url() + "/n"), [&](Response r) {
        if (r.error == TransportError::kCancelled) ++cancelled;
      });
    }
    REQUIRE(WaitUntil([&] { return server.request_count() == 3; }));
  }
  CHECK(cancelled == 3);
  CHECK(WaitUntil([&] { return server.open_connections() == 0; }));
}

TEST_CASE("per-host connection cap queues requests inside curl", "[http][curl]") {
  ReplayServer server;
  server.SetHandler([](const testing::ReceivedRequest&) {
    ScriptedReply r = ScriptedReply::Json(200, "{}");
    r.delay = milliseconds(20);
    return r;
  });
  loop::EventLoop loop;
  CurlClientOptions options;
  options.max_host_connections = 2;
  CurlClient client(loop, options);
  std::atomic<int> ok{0};
  std::promise<void> all;
  for (int i = 0; i < 6; ++i) {
    client.Send(Get(server.base_url() + "/x"), [&](Response r) {
      if (r.status == 200) ++ok;
      if (ok == 6) all.set_value();
    });
  }
  REQUIRE(all.get_future().wait_for(std::chrono::seconds(3)) == std::future_status::ready);
  CHECK(server.accepted_connections() <= 2);
}

TEST_CASE("request descriptions for logs redact secrets", "[http]") {
  Request r;
  r.method = "POST";
  r.url = "http://h/v1/chat/completions";
  r.headers = {{"Authorization", "Bearer sk-secret-123"}};
  r.secret_values = {"sk-secret-123"};
  std::string text = DescribeForLog(r);
  CHECK(text.find("sk-secret-123") == std::string::npos);
  CHECK(text.find("Bearer ***") != std::string::npos);
}

}  // namespace seragen::http
