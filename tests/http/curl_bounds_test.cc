// What a server can send without end is capped: body bytes (collected or
// streamed) and header bytes; replies that are not HTTP are told apart from
// a bad URL.
#include <catch2/catch.hpp>

#include <string>

#include "http/http_test_util.h"
#include "http/replay_server.h"
#include "seragen/http/curl_client.h"

namespace seragen::http {
namespace {

using testing::ReplayServer;
using testing::ScriptedReply;
using testing::SendAndWait;

ScriptedReply Endless(std::size_t piece_bytes) {
  ScriptedReply r = ScriptedReply::Json(200, std::string(piece_bytes, 'a'));
  r.endless = true;
  r.chunk_interval = std::chrono::milliseconds(1);  // ~64 MB/s: bounded even where the cap is missing
  return r;
}

Request Get(const std::string& url) {
  Request r;
  r.url = url;
  r.timeout = std::chrono::milliseconds(4000);
  return r;
}

// Sends GET /endless (an endless body) with a 1 MiB cap; `streamed` set:
// through on_body_chunk, counting the bytes delivered.
Response FetchEndless(std::size_t* streamed = nullptr) {
  ReplayServer server;
  server.Enqueue("/endless", Endless(64 * 1024));
  loop::EventLoop loop;
  CurlClient client(loop);
  Request req = Get(server.base_url() + "/endless");
  req.max_body_bytes = 1 << 20;
  if (streamed) {
    req.on_body_chunk = [streamed](std::string_view piece) {
      *streamed += piece.size();
      return true;
    };
  }
  return SendAndWait(client, req);
}

}  // namespace

TEST_CASE("an endless body stops at max_body_bytes", "[http][curl][bounds]") {
  Response r = FetchEndless();
  CHECK(r.error == TransportError::kBodyTooLarge);
  CHECK(r.error_message == "the response body passed the cap of 1048576 bytes");
  CHECK(r.body.size() <= (1u << 20));
}

TEST_CASE("an endless streamed body stops at max_body_bytes too", "[http][curl][bounds]") {
  std::size_t streamed = 0;
  Response r = FetchEndless(&streamed);
  CHECK(r.error == TransportError::kBodyTooLarge);
  CHECK(streamed <= (1u << 20));
}

TEST_CASE("headers past max_header_bytes stop the transfer", "[http][curl][bounds]") {
  ReplayServer server;
  std::vector<testing::HeaderPair> many;
  for (int i = 0; i < 64; ++i) many.emplace_back("X-Filler-" + std::to_string(i), std::string(8000, 'h'));
  server.Enqueue("/many", ScriptedReply::Json(200, "{}", many));
  loop::EventLoop loop;
  CurlClient client(loop);
  Request req = Get(server.base_url() + "/many");
  req.max_header_bytes = 64 * 1024;
  Response r = SendAndWait(client, req);
  CHECK(r.error == TransportError::kHeadersTooLarge);
  CHECK(r.error_message == "the response headers passed the cap of 65536 bytes");
}

TEST_CASE("one header line longer than curl accepts is a header error, not out of memory", "[http][curl][bounds]") {
  ReplayServer server;
  server.Enqueue("/huge", ScriptedReply::Json(200, "{}", {{"X-Huge", std::string(300 * 1024, 'h')}}));
  loop::EventLoop loop;
  CurlClient client(loop);
  Response r = SendAndWait(client, Get(server.base_url() + "/huge"));
  CHECK(r.error == TransportError::kHeadersTooLarge);
  CHECK(r.error_message.rfind("a response header line is longer than the HTTP client accepts", 0) == 0);
}

TEST_CASE("an under-reported Content-Length is never a bad URL", "[http][curl][bounds]") {
  ReplayServer server;
  const std::string body =
      R"({"id":"x","choices":[{"index":0,"message":{"content":")" + std::string(300, 'z') + "\"}}]}";
  // The 20 promised bytes, then (a little later, once the client has
  // finished and sent its next request on the connection) the rest.
  ScriptedReply short_length = ScriptedReply::Json(200, "");
  short_length.chunks = {body.substr(0, 20), body.substr(20)};
  short_length.chunk_interval = std::chrono::milliseconds(50);
  short_length.content_length = 20;
  server.Enqueue("/short", short_length);
  server.Enqueue("/next", ScriptedReply::Json(200, "{}"));
  loop::EventLoop loop;
  CurlClient client(loop);
  Response first = SendAndWait(client, Get(server.base_url() + "/short"));
  REQUIRE(first.transport_ok());
  CHECK(first.body == body.substr(0, 20));
  Response next = SendAndWait(client, Get(server.base_url() + "/next"));
  INFO(TransportErrorName(next.error) << ": " << next.error_message);
  CHECK(next.error != TransportError::kBadUrl);  // what a bad URL scheme gives: a configuration error
  if (!next.transport_ok()) CHECK(next.error == TransportError::kBadResponse);
}

}  // namespace seragen::http
