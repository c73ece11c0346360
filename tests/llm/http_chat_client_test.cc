#include "seragen/llm/http_chat_client.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <atomic>

#include "http/http_test_util.h"
#include "llm/chat_test_harness.h"
#include "llm/error_table.h"
#include "llm/llm_fixtures.h"
#include "seragen/base/log.h"
#include "seragen/llm/sse_assembler.h"
#include "seragen/llm/wire_codec.h"

namespace seragen::llm {

using std::chrono::milliseconds;
using testing::AsReply;
using testing::AsResponse;
using testing::ChatHarness;
using testing::Fixture;
using testing::LoadHttpFixture;
using testing::ScriptedReply;
using testing::SimpleRequest;
using testing::WaitUntil;
using Action = ScriptedReply::Action;

namespace {
const char* kPath = "/v1/chat/completions";

ScriptedReply Ok(const std::string& fixture = "f1a_openai_tool_call") {
  return ScriptedReply::Json(200, Fixture("responses/" + fixture + ".json"));
}

ScriptedReply Stream(const std::string& fixture) {
  return ScriptedReply::Sse({Fixture("streams/" + fixture + ".sse")});
}

nlohmann::json BodyOf(const testing::ReceivedRequest& r) { return nlohmann::json::parse(r.body); }
// A pool that runs one call at a time (the others queue).
ChatClientOptions OneCallAtATime() {
  ChatClientOptions o;
  o.pool.max_concurrency = 1;
  return o;
}

// Every request is accepted and never answered.
void NeverAnswer(testing::ReplayServer& server) {
  server.SetHandler([](const testing::ReceivedRequest&) { return ScriptedReply::WithAction(Action::kNeverAnswer); });
}

}  // namespace

TEST_CASE("the same configuration error on 3 consecutive calls stops the run, later calls are not sent",
          "[llm][client][config]") {
  const std::string body =
      R"({"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}})";
  ChatHarness h;
  for (int i = 0; i < 5; ++i) h.server().Enqueue(kPath, ScriptedReply::Json(400, body));
  for (int i = 0; i < 3; ++i) {
    INFO("call " << i);
    CHECK_FALSE(h.client->RunStopStatus().has_value());
    auto r = h.Call(SimpleRequest());
    REQUIRE_FALSE(r.ok());
    CHECK(FailureClassOf(r.status()) == FailureClass::kConfig);
    CHECK(r.status().message().find("attempts: 1") != std::string::npos);  // never retried
  }
  auto stop = h.client->RunStopStatus();
  REQUIRE(stop.has_value());
  CHECK(FailureClassOf(*stop) == FailureClass::kConfig);
  CHECK(stop->message().find("3 consecutive calls") != std::string::npos);
  CHECK(stop->message().find("'max_tokens' is not supported") != std::string::npos);
  CHECK(stop->message().find("llm.max_tokens_field") != std::string::npos);
  auto fourth = h.Call(SimpleRequest());
  REQUIRE_FALSE(fourth.ok());
  CHECK(FailureClassOf(fourth.status()) == FailureClass::kConfig);
  CHECK(h.server().requests().size() == 3);
}

TEST_CASE("tasks that fail fast and start again send no more than the limit while a streak is open",
          "[llm][client][config]") {
  // Three callers run at once, as three scheduler slots do; each starts a new
  // call as soon as its last one failed. The first rejection comes at once,
  // the others later: the restarted call must wait for them, not be a 4th.
  const std::string body =
      R"({"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}})";
  ChatClientOptions options;
  options.pool.max_concurrency = 3;
  options.config_error_limit = 3;
  ChatHarness h(options);
  std::atomic<int> seen{0};
  h.server().SetHandler([&](const testing::ReceivedRequest&) {
    ScriptedReply r = ScriptedReply::Json(400, body);
    if (seen.fetch_add(1) > 0) r.delay = milliseconds(300);
    return r;
  });
  std::atomic<int> started{0};
  std::atomic<int> finished{0};
  std::function<void()> start = [&] {
    if (started.fetch_add(1) >= 9) return;
    h.client->Complete(SimpleRequest(), {}, [&](Result<ChatResponse>) {
      finished.fetch_add(1);
      start();
    });
  };
  for (int i = 0; i < 3; ++i) start();
  REQUIRE(WaitUntil([&] { return h.client->RunStopStatus().has_value() && finished.load() >= 9; }, milliseconds(5000)));
  CHECK(h.server().requests().size() == 3);
}

TEST_CASE("a success between configuration errors resets the count", "[llm][client][config]") {
  const std::string body =
      R"({"error":{"message":"Unsupported value: 'temperature' does not support 0.6 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}})";
  ChatHarness h;
  h.server().Enqueue(kPath, ScriptedReply::Json(400, body));
  h.server().Enqueue(kPath, ScriptedReply::Json(400, body));
  h.server().Enqueue(kPath, Ok());
  h.server().Enqueue(kPath, ScriptedReply::Json(400, body));
  h.server().Enqueue(kPath, ScriptedReply::Json(400, body));
  for (int i = 0; i < 5; ++i) (void)h.Call(SimpleRequest());
  CHECK_FALSE(h.client->RunStopStatus().has_value());
  CHECK(h.server().requests().size() == 5);
}

TEST_CASE("per-endpoint headers are sent and never logged, per-endpoint wire options apply", "[llm][client][headers]") {
  ChatClientOptions options;
  testing::ReplayServer server;
  EndpointOptions e;
  e.base_url = server.base_url() + "/v1";
  e.headers.emplace_back("X-Tenant", SecretString("tenant-secret-value"));
  WireOptions w;
  w.max_tokens_field = WireOptions::MaxTokensField::kMaxCompletionTokens;
  w.send_sampling = false;
  e.wire = w;
  options.endpoints.push_back(e);
  ChatHarness h(options);
  server.Enqueue(kPath, Ok());
  ChatRequest req = SimpleRequest();
  req.max_tokens = 100;
  req.sampling.temperature = 0.3;
  auto r = h.Call(req);
  REQUIRE(r.ok());
  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].Header("x-tenant") == std::optional<std::string>("tenant-secret-value"));
  auto body = BodyOf(requests[0]);
  CHECK(body["max_completion_tokens"] == 100);
  CHECK_FALSE(body.contains("max_tokens"));
  CHECK_FALSE(body.contains("temperature"));
}

TEST_CASE("every error fixture over HTTP: class, attempts and back-off", "[llm][client][fixture]") {
  for (const auto& e : kErrorTable) {
    DYNAMIC_SECTION(e.fixture) {
      ChatHarness h;
      auto f = LoadHttpFixture(e.fixture);
      h.server().Enqueue(kPath, AsReply(f));
      h.server().Enqueue(kPath, Ok());
      ChatRequest req = SimpleRequest();
      req.max_tokens = 16384;
      auto r = h.Call(req);
      auto delays = h.executor.delays();
      auto requests = h.server().requests();
      switch (e.failure_class) {
        case FailureClass::kTransientServer:
        case FailureClass::kServerNotReady:
        case FailureClass::kRateLimited: {
          REQUIRE(r.ok());
          CHECK(r->timings.attempts == 2);
          CHECK(requests.size() == 2);
          REQUIRE(delays.size() == 1);
          if (auto ra = AsResponse(f).FindHeader("retry-after-ms")) {
            CHECK(delays[0] == milliseconds(1500));
          } else if (auto s = AsResponse(f).FindHeader("retry-after")) {
            CHECK(delays[0] == milliseconds(std::stoll(*s) * 1000));
          } else {
            milliseconds nominal =
                e.failure_class == FailureClass::kServerNotReady ? milliseconds(2000) : milliseconds(500);
            CHECK(delays[0] <= nominal);
            CHECK(delays[0] >= nominal * 3 / 4 - milliseconds(1));
          }
          CHECK(r->timings.backoff == std::chrono::duration_cast<std::chrono::microseconds>(delays[0]));
          CHECK_FALSE(h.client->RunStopStatus().has_value());
          break;
        }
        case FailureClass::kOutputBudget: {
          REQUIRE(r.ok());  // lowered once, retried at once
          CHECK(requests.size() == 2);
          CHECK(delays.empty());
          CHECK(BodyOf(requests[1])["max_tokens"].get<long long>() < 16384);
          break;
        }
        default: {
          REQUIRE_FALSE(r.ok());
          INFO(r.status().ToString());
          CHECK(FailureClassOf(r.status()) == e.failure_class);
          CHECK(requests.size() == 1);
          CHECK(delays.empty());
          CHECK(r.status().message().find("attempts: 1") != std::string::npos);
          // Quota stops at once; one configuration error alone does not.
          bool stops_run = e.failure_class == FailureClass::kQuota;
          CHECK(h.client->RunStopStatus().has_value() == stops_run);
          break;
        }
      }
    }
  }
}

TEST_CASE("output budget: max_tokens lowered to what the message allows, only once", "[llm][client]") {
  ChatHarness h;
  auto f = LoadHttpFixture("f5c_vllm_max_tokens_too_large");
  h.server().Enqueue(kPath, AsReply(f));
  h.server().Enqueue(kPath, AsReply(f));
  ChatRequest req = SimpleRequest();
  req.max_tokens = 16384;
  auto r = h.Call(req);
  REQUIRE_FALSE(r.ok());
  CHECK(FailureClassOf(r.status()) == FailureClass::kOutputBudget);
  auto requests = h.server().requests();
  REQUIRE(requests.size() == 2);
  CHECK(BodyOf(requests[1])["max_tokens"] == 65536 - 52189 - 256);
}

TEST_CASE("successful call: typed response, endpoint, timings, auth header", "[llm][client]") {
  ::setenv("SERAGEN_CLIENT_TEST_KEY", "sk-client-test-7777", 1);
  ChatHarness h;
  auto ep = MakeEndpointOptions(h.server().base_url(), "SERAGEN_CLIENT_TEST_KEY");
  REQUIRE(ep.ok());
  ChatClientOptions with_key;
  with_key.endpoints = {*ep};
  HttpChatClient client(h.http, h.executor, h.clock, with_key);
  h.server().Enqueue(kPath, Ok());
  std::string logs;
  log::Level old_level = log::GetLevel();
  log::SetLevel(log::Level::kDebug);
  std::promise<Result<ChatResponse>> promise;
  {
    log::ScopedCapture capture(&logs);
    client.Complete(SimpleRequest(), {}, [&](Result<ChatResponse> r) {
      CHECK(h.loop.InLoopThread());  // done runs on the loop thread
      promise.set_value(std::move(r));
    });
    auto r = promise.get_future().get();
    REQUIRE(r.ok());
    CHECK(r->tool_calls.at(0).name == "bash");
    CHECK(r->endpoint == h.server().base_url() + "/v1");
    CHECK(r->timings.attempts == 1);
    CHECK(r->usage.cached_prompt_tokens == std::optional<std::int64_t>(1280));
  }
  log::SetLevel(old_level);
  auto got = h.server().requests();
  REQUIRE(got.size() == 1);
  CHECK(got[0].Header("authorization") == std::optional<std::string>("Bearer sk-client-test-7777"));
  CHECK(BodyOf(got[0])["model"] == "test-model");
  CHECK(logs.find("sk-client-test-7777") == std::string::npos);
  CHECK(logs.find("Bearer ***") != std::string::npos);
  ::unsetenv("SERAGEN_CLIENT_TEST_KEY");
}

TEST_CASE("an answer names its endpoint without the credentials of its base URL", "[llm][client]") {
  ChatHarness h;
  std::string url = h.server().base_url() + "/v1";
  url.insert(url.find("://") + 3, "user:s3cret-pw@");
  auto ep = MakeEndpointOptions(url, "");
  REQUIRE(ep.ok());
  ChatClientOptions options;
  options.endpoints = {*ep};
  HttpChatClient client(h.http, h.executor, h.clock, options);
  h.server().Enqueue(kPath, Ok());
  std::promise<Result<ChatResponse>> promise;
  client.Complete(SimpleRequest(), {}, [&](Result<ChatResponse> r) { promise.set_value(std::move(r)); });
  auto r = promise.get_future().get();
  REQUIRE(r.ok());
  CHECK(r->endpoint == h.server().base_url() + "/v1");  // what journals, prices and trajectories name it by
}

TEST_CASE("history hygiene on the wire: invalid arguments are sent back as {}", "[llm][client]") {
  ChatHarness h;
  h.server().Enqueue(kPath, Ok());
  ChatRequest req = SimpleRequest();
  Message assistant{Role::kAssistant, ""};
  ToolCall bad;
  bad.id = "call_9";
  bad.name = "bash";
  bad.arguments_raw = R"({"command": "ls)";
  assistant.tool_calls.push_back(bad);
  req.messages.push_back(assistant);
  Message tool{Role::kTool, "format error"};
  tool.tool_call_id = "call_9";
  req.messages.push_back(tool);
  REQUIRE(h.Call(req).ok());
  auto body = BodyOf(h.server().requests().at(0));
  CHECK(body["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}");
}

TEST_CASE("streams over HTTP: assembled, and mid-stream failures retried", "[llm][client][fixture]") {
  CallOptions stream;
  stream.stream = true;
  SECTION("F4a") {
    ChatHarness h;
    h.server().Enqueue(kPath, Stream("f4a_openai_tool_stream"));
    auto r = h.Call(SimpleRequest(), stream);
    REQUIRE(r.ok());
    CHECK(r->tool_calls.at(0).arguments_raw == R"({"command": "ls -la"})");
    auto body = BodyOf(h.server().requests().at(0));
    CHECK(body["stream"] == true);
    CHECK(h.server().requests().at(0).Header("accept") == std::optional<std::string>("text/event-stream"));
  }
  for (const char* bad : {"f8a_openai_midstream_error", "f8b_vllm_flat_error", "f8b_vllm_nested_error",
                          "f8c_openrouter_finish_error", "eof_without_finish", "done_without_finish"}) {
    DYNAMIC_SECTION(bad) {
      ChatHarness h;
      h.server().Enqueue(kPath, Stream(bad));
      h.server().Enqueue(kPath, Stream("f4b_vllm_stream"));
      auto r = h.Call(SimpleRequest(), stream);
      REQUIRE(r.ok());  // partial answer thrown away, whole request resent
      CHECK(r->timings.attempts == 2);
      CHECK(r->reasoning == "Need the weather");
      CHECK(h.executor.delays().size() == 1);
    }
  }
  SECTION("error status on a stream request is classified from its body") {
    ChatHarness h;
    h.server().Enqueue(kPath, AsReply(LoadHttpFixture("f5e_llamacpp_exceed")));
    auto r = h.Call(SimpleRequest(), stream);
    CHECK(FailureClassOf(r.status()) == FailureClass::kContextOverflow);
  }
}

TEST_CASE("silent truncation (empty completion, length) is a context overflow", "[llm][client][fixture]") {
  ChatHarness h;
  h.server().Enqueue(kPath, Ok("sglang_auto_truncate_empty"));
  auto r = h.Call(SimpleRequest());
  CHECK(FailureClassOf(r.status()) == FailureClass::kContextOverflow);
  ChatHarness h2;
  h2.server().Enqueue(kPath, Ok("f2a_reasoning_content"));  // prompt_tokens 9001
  CallOptions expect;
  expect.min_expected_prompt_tokens = 12000;
  CHECK(FailureClassOf(h2.Call(SimpleRequest(), expect).status()) == FailureClass::kContextOverflow);
}

TEST_CASE("tool problems of a 200 answer are not failures", "[llm][client][fixture]") {
  ChatHarness h;
  h.server().Enqueue(kPath, Ok("f3b_markup_in_content"));
  auto r = h.Call(SimpleRequest());
  REQUIRE(r.ok());
  CHECK(r->tool_issue == ToolIssue::kToolFormat);
  CHECK(h.server().request_count() == 1);
}

TEST_CASE("transport failures: reset, silence and stalls are retried, then fail tagged", "[llm][client]") {
  CallOptions quick;
  quick.attempt_timeout = milliseconds(100);
  // `first` fails the first attempt; the retry gets a good answer.
  auto expect_one_retry = [&](const ScriptedReply& first) {
    ChatHarness h;
    h.server().Enqueue(kPath, first);
    h.server().Enqueue(kPath, Ok());
    auto r = h.Call(SimpleRequest(), quick);
    REQUIRE(r.ok());
    CHECK(r->timings.attempts == 2);
  };
  SECTION("connection reset, then success") { expect_one_retry(ScriptedReply::WithAction(Action::kReset)); }
  SECTION("server accepts and never answers: deadline per attempt, then give up") {
    ChatClientOptions o;
    o.retry.max_attempts = 2;
    ChatHarness h(o);
    NeverAnswer(h.server());
    auto r = h.Call(SimpleRequest(), quick);
    REQUIRE_FALSE(r.ok());
    CHECK(FailureClassOf(r.status()) == FailureClass::kTransientNetwork);
    CHECK(r.status().message().find("timeout") != std::string::npos);
    CHECK(r.status().message().find("gave up after 2 attempts") != std::string::npos);
    CHECK(h.server().request_count() == 2);
  }
  SECTION("server stalls mid-body, then answers") {
    ScriptedReply stall = Ok();
    stall.action = Action::kStallMidBody;
    expect_one_retry(stall);
  }
  SECTION("stream stalls mid-body") {
    ChatClientOptions o;
    o.retry.max_attempts = 1;
    ChatHarness h(o);
    ScriptedReply stall = Stream("f4a_openai_tool_stream");
    stall.chunks = {"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n"};
    stall.action = Action::kStallMidBody;
    h.server().Enqueue(kPath, stall);
    CallOptions s = quick;
    s.stream = true;
    auto r = h.Call(SimpleRequest(), s);
    CHECK(FailureClassOf(r.status()) == FailureClass::kTransientNetwork);
  }
  SECTION("connection refused") {
    int port;
    {
      testing::ReplayServer gone;
      port = gone.port();
    }
    ChatClientOptions o;
    o.retry.max_attempts = 3;
    EndpointOptions e;
    e.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
    o.endpoints = {e};
    o.pool.eject_after_failures = 100;
    ChatHarness h(o);
    auto r = h.Call(SimpleRequest(), quick);
    CHECK(FailureClassOf(r.status()) == FailureClass::kTransientNetwork);
    CHECK(h.executor.delays().size() == 2);
  }
}

TEST_CASE("a rate-limit storm ends as a tagged failure once the back-off budget is spent", "[llm][client]") {
  ChatClientOptions o;
  o.retry.max_attempts = 1000;
  o.retry.total_backoff_budget = milliseconds(60000);
  ChatHarness h(o);
  h.server().SetHandler([](const testing::ReceivedRequest&) {
    ScriptedReply r = ScriptedReply::Json(429, R"({"error":{"code":429,"message":"Rate limit exceeded"}})");
    r.headers.emplace_back("Retry-After", "10");
    return r;
  });
  auto r = h.Call(SimpleRequest());
  REQUIRE_FALSE(r.ok());
  CHECK(FailureClassOf(r.status()) == FailureClass::kRateLimited);
  CHECK(r.status().message().find("retry budget exhausted") != std::string::npos);
  CHECK(h.server().request_count() == 7);
  auto delays = h.executor.delays();
  CHECK(delays == std::vector<milliseconds>(6, milliseconds(10000)));
}

TEST_CASE("call deadline bounds retries", "[llm][client]") {
  ChatHarness h;
  h.server().SetHandler([](const testing::ReceivedRequest&) { return ScriptedReply::Json(500, "{}"); });
  CallOptions o;
  o.deadline = milliseconds(2000);
  auto r = h.Call(SimpleRequest(), o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("deadline") != std::string::npos);
  milliseconds waited{0};
  for (auto d : h.executor.delays()) waited += d;
  CHECK(waited < milliseconds(2000));
}

TEST_CASE("cancellation in flight and queued, done runs exactly once", "[llm][client]") {
  ChatHarness h(OneCallAtATime());
  NeverAnswer(h.server());
  std::atomic<int> first_calls{0}, second_calls{0};
  std::promise<Result<ChatResponse>> first, second;
  auto handle1 = h.client->Complete(SimpleRequest(), {}, [&](Result<ChatResponse> r) {
    if (++first_calls == 1) first.set_value(std::move(r));
  });
  auto handle2 = h.client->Complete(SimpleRequest(), {}, [&](Result<ChatResponse> r) {
    if (++second_calls == 1) second.set_value(std::move(r));
  });
  REQUIRE(WaitUntil([&] { return h.server().request_count() == 1; }));
  handle2->Cancel();  // queued behind the concurrency limit
  auto r2 = second.get_future().get();
  CHECK(FailureClassOf(r2.status()) == FailureClass::kCancelled);
  handle1->Cancel();  // in flight
  auto r1 = first.get_future().get();
  CHECK(FailureClassOf(r1.status()) == FailureClass::kCancelled);
  handle1->Cancel();
  h.loop.RunSync([] {});
  CHECK(first_calls == 1);
  CHECK(second_calls == 1);
  CHECK(h.server().request_count() == 1);
  CHECK(h.http.InFlight() == 0);
}

TEST_CASE("a queued call fails when its deadline passes", "[llm][client]") {
  ChatHarness h(OneCallAtATime());
  NeverAnswer(h.server());
  auto stuck = h.client->Complete(SimpleRequest(), {}, [](Result<ChatResponse>) {});
  REQUIRE(WaitUntil([&] { return h.server().request_count() == 1; }));
  CallOptions short_deadline;
  short_deadline.deadline = milliseconds(50);
  auto r = h.Call(SimpleRequest(), short_deadline);
  CHECK(FailureClassOf(r.status()) == FailureClass::kTransientNetwork);
  CHECK(r.status().message().find("deadline") != std::string::npos);
  stuck->Cancel();
}

TEST_CASE("destroying the client completes open calls as cancelled", "[llm][client]") {
  ChatHarness h;
  NeverAnswer(h.server());
  std::atomic<int> cancelled{0};
  for (int i = 0; i < 3; ++i) {
    h.client->Complete(SimpleRequest(), {}, [&](Result<ChatResponse> r) {
      if (FailureClassOf(r.status()) == FailureClass::kCancelled) ++cancelled;
    });
  }
  REQUIRE(WaitUntil([&] { return h.server().request_count() == 3; }));
  h.client.reset();
  CHECK(cancelled == 3);
  CHECK(WaitUntil([&] { return h.http.InFlight() == 0; }));
}

TEST_CASE("endpoint pool: spread by outstanding requests", "[llm][client][pool]") {
  ChatHarness h({}, 2);
  for (int i = 0; i < 2; ++i) {
    h.server(i).SetHandler([](const testing::ReceivedRequest&) {
      ScriptedReply r = Ok();
      r.delay = milliseconds(30);
      return r;
    });
  }
  std::atomic<int> ok{0};
  std::promise<void> all;
  for (int i = 0; i < 4; ++i) {
    h.client->Complete(SimpleRequest(), {}, [&](Result<ChatResponse> r) {
      if (r.ok() && ++ok == 4) all.set_value();
    });
  }
  REQUIRE(all.get_future().wait_for(std::chrono::seconds(3)) == std::future_status::ready);
  CHECK(h.server(0).request_count() == 2);
  CHECK(h.server(1).request_count() == 2);
}

TEST_CASE("a concurrency cap that holds calls back is logged and counted", "[llm][client][pool]") {
  ChatClientOptions options;
  options.pool.max_concurrency = 1;
  ChatHarness h(options);
  h.server().SetHandler([](const testing::ReceivedRequest&) {
    ScriptedReply r = Ok();
    r.delay = milliseconds(30);
    return r;
  });
  std::string logs;
  std::atomic<int> ok{0};
  std::promise<void> all;
  {
    log::ScopedCapture capture(&logs);
    for (int i = 0; i < 3; ++i) {
      h.client->Complete(SimpleRequest(), {}, [&](Result<ChatResponse> r) {
        if (r.ok() && ++ok == 3) all.set_value();
      });
    }
    REQUIRE(all.get_future().wait_for(std::chrono::seconds(3)) == std::future_status::ready);
  }
  CHECK(logs.find("held back by llm.max_concurrency (1)") != std::string::npos);
  CallHolds holds = h.client->Holds();
  CHECK(holds.global_cap_holds >= 1);
  CHECK(holds.endpoint_cap_holds == 0);
  CHECK(holds.unavailable_holds == 0);
}

TEST_CASE("endpoint pool: a failing endpoint is ejected, then probed back in", "[llm][client][pool]") {
  ChatClientOptions o;
  o.pool.eject_after_failures = 1;
  o.pool.probe_interval = milliseconds(1000);
  ChatHarness h(o, 2);
  h.server(0).Enqueue(kPath, ScriptedReply::WithAction(Action::kReset));
  h.server(1).SetHandler([](const testing::ReceivedRequest&) { return Ok(); });
  auto r = h.Call(SimpleRequest());
  REQUIRE(r.ok());
  CHECK(r->endpoint == h.server(1).base_url() + "/v1");  // the retry avoided the ejected one
  CHECK(h.client->EndpointSnapshot()[0].ejected);
  h.server(0).Enqueue("/v1/models", ScriptedReply::Json(200, Fixture("models/f9b_vllm.json")));
  h.clock.Advance(milliseconds(1000));
  REQUIRE(h.Call(SimpleRequest()).ok());  // any call gives the pool a chance to probe
  REQUIRE(WaitUntil([&] { return !h.client->EndpointSnapshot()[0].ejected; }));
  auto snap = h.client->EndpointSnapshot();
  CHECK(snap[0].context_window == std::optional<std::int64_t>(131072));
  CHECK(snap[0].model_id == "zai-org/GLM-4.5-Air");
}

TEST_CASE("encoding errors fail the call without a request", "[llm][client]") {
  ChatHarness h;
  ChatRequest req = SimpleRequest();
  req.extra_body_json = "not json";
  auto r = h.Call(req);
  CHECK(FailureClassOf(r.status()) == FailureClass::kBadRequest);
  CHECK(h.server().request_count() == 0);
}

}  // namespace seragen::llm

namespace seragen::llm {

TEST_CASE("a stream written in small pieces over the socket assembles the same", "[llm][client]") {
  ChatHarness h;
  std::string text = Fixture("streams/parallel_interleaved.sse");
  std::vector<std::string> pieces;
  for (std::size_t i = 0; i < text.size(); i += 7) pieces.push_back(text.substr(i, 7));
  ScriptedReply reply = ScriptedReply::Sse(pieces);
  reply.chunk_interval = milliseconds(0);
  h.server().Enqueue(kPath, reply);
  CallOptions stream;
  stream.stream = true;
  auto r = h.Call(SimpleRequest(), stream);
  REQUIRE(r.ok());
  REQUIRE(r->tool_calls.size() == 2);
  CHECK(r->tool_calls[1].arguments_raw == R"({"command": "ls"})");
  CHECK(r->raw_body == text);
}

TEST_CASE("x-should-retry: false stops retries of a retryable status", "[llm][client]") {
  ChatHarness h;
  ScriptedReply busy = ScriptedReply::Json(500, R"({"error":{"message":"busy"}})");
  busy.headers.emplace_back("x-should-retry", "false");
  h.server().Enqueue(kPath, busy);
  h.server().Enqueue(kPath, Ok());
  auto r = h.Call(SimpleRequest());
  CHECK(FailureClassOf(r.status()) == FailureClass::kTransientServer);
  CHECK(r.status().message().find("x-should-retry") != std::string::npos);
  CHECK(h.server().request_count() == 1);
}

TEST_CASE("Retry-After above the cap means give up at once", "[llm][client]") {
  ChatHarness h;
  ScriptedReply slow = ScriptedReply::Json(429, R"({"error":{"message":"Rate limit reached"}})");
  slow.headers.emplace_back("Retry-After", "3600");
  h.server().Enqueue(kPath, slow);
  auto r = h.Call(SimpleRequest());
  CHECK(FailureClassOf(r.status()) == FailureClass::kRateLimited);
  CHECK(r.status().message().find("cap") != std::string::npos);
  CHECK(h.executor.delays().empty());
}

}  // namespace seragen::llm

namespace seragen::llm {

TEST_CASE("ProbeAll reads identity and context window, failing endpoints are ejected", "[llm][client][pool]") {
  ChatHarness h({}, 3);
  h.server(0).Enqueue("/v1/models", ScriptedReply::Json(200, Fixture("models/f9c_sglang.json")));
  h.server(1).Enqueue("/v1/models", ScriptedReply::Json(200, Fixture("models/f9d_llamacpp.json")));
  h.server(1).Enqueue("/props", ScriptedReply::Json(200, Fixture("models/llamacpp_props.json")));
  h.server(2).Enqueue("/v1/models", ScriptedReply::Json(503, Fixture("models/f9a_openai.json")));
  std::promise<std::vector<EndpointState>> promise;
  h.client->ProbeAll([&](std::vector<EndpointState> s) { promise.set_value(std::move(s)); });
  auto future = promise.get_future();
  REQUIRE(future.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  auto snap = future.get();
  REQUIRE(snap.size() == 3);
  CHECK(snap[0].model_id == "GLM-4.6");
  CHECK(snap[0].context_window == std::optional<std::int64_t>(65536));
  CHECK_FALSE(snap[0].ejected);
  CHECK(snap[1].context_window == std::optional<std::int64_t>(8192));  // /props, not n_ctx_train
  CHECK_FALSE(snap[1].ejected);
  CHECK(snap[2].ejected);
  // Calls now avoid the ejected endpoint.
  for (int i = 0; i < 2; ++i) h.server(i).SetHandler([](const testing::ReceivedRequest&) { return Ok(); });
  for (int i = 0; i < 4; ++i) REQUIRE(h.Call(SimpleRequest()).ok());
  CHECK(h.server(2).request_count() == 1);  // only the probe
}

// Issue 12, finding 2: 100,000-level nested arguments crashed the client
// (recursive dump of the parsed arguments). They are a tool-arguments
// problem of the answer now, as a string and as an inline object, and in a stream.
TEST_CASE("deeply nested tool arguments become a tool-arguments issue, not a crash", "[llm][client]") {
  constexpr int kLevels = 100000;
  std::string deep_args = "{\"a\":" + std::string(kLevels, '[') + std::string(kLevels, ']') + "}";
  nlohmann::json body = {
      {"id", "x"},
      {"model", "m"},
      {"choices",
       {{{"index", 0},
         {"finish_reason", "tool_calls"},
         {"message",
          {{"role", "assistant"},
           {"content", nullptr},
           {"tool_calls",
            {{{"id", "c1"}, {"type", "function"}, {"function", {{"name", "bash"}, {"arguments", deep_args}}}}}}}}}}}};
  ChatHarness h;
  h.server().Enqueue(kPath, ScriptedReply::Json(200, body.dump()));
  auto r = h.Call(SimpleRequest());
  REQUIRE(r.ok());
  REQUIRE(r->tool_calls.size() == 1);
  CHECK_FALSE(r->tool_calls[0].arguments_valid);
  CHECK(r->tool_issue == ToolIssue::kToolArgs);
  CHECK(r->tool_calls[0].arguments_error.find("nests deeper than 64 levels") != std::string::npos);

  // The same arguments as an inline object make the whole body too deep: a
  // malformed answer (retried), never a crash.
  std::string inline_body = body.dump();
  std::string quoted = nlohmann::json(deep_args).dump();
  inline_body.replace(inline_body.find(quoted), quoted.size(), deep_args);
  ChatHarness h2;
  for (int i = 0; i < 10; ++i) h2.server().Enqueue(kPath, ScriptedReply::Json(200, inline_body));
  CHECK_FALSE(h2.Call(SimpleRequest()).ok());
  auto decoded = DecodeChatResponse(inline_body);
  REQUIRE_FALSE(decoded.ok());
  CHECK(FailureClassOf(decoded.status()) == FailureClass::kTransientServer);
  CHECK(decoded.status().message().find("nests deeper than 128 levels") != std::string::npos);

  SseAssembler sse;
  nlohmann::json chunk = {
      {"choices",
       {{{"index", 0},
         {"finish_reason", "tool_calls"},
         {"delta",
          {{"tool_calls",
            {{{"index", 0}, {"id", "c1"}, {"function", {{"name", "bash"}, {"arguments", deep_args}}}}}}}}}}}};
  REQUIRE(sse.Feed("data: " + chunk.dump() + "\n\ndata: [DONE]\n\n"));
  auto streamed = sse.Finish();
  REQUIRE(streamed.ok());
  CHECK(streamed->tool_issue == ToolIssue::kToolArgs);
}

}  // namespace seragen::llm
