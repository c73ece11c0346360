#include "teacher/server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "teacher/run_command.h"
#include "teacher/test_support.h"
#include "testing/temp_dir.h"

using namespace seragen::teacher;
using namespace seragen::teacher::testing;
using nlohmann::json;

namespace {

TeacherOptions Opts(std::uint64_t seed = 1) {
  TeacherOptions o;
  o.prompts_dir = PromptsDir();
  o.seed = seed;
  // Byte-identical answers to a repeated body hold with the prefix cache off:
  // with it on, a repeat reports more cached tokens, as a real server's would.
  o.prefix_cache_blocks = 0;
  return o;
}

std::string RolloutBody(bool stream = false) {
  json body = {{"model", "x"},
               {"messages",
                {{{"role", "system"}, {"content", ReadPrompt("system.md")}},
                 {{"role", "user"}, {"content", Rollout1Prompt("clamp", "pkg/config.py", 13)}}}},
               {"tools", ToolsJson()}};
  if (stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  return body.dump();
}

}  // namespace

TEST_CASE("Server answers health, models with the context window, and unknown paths") {
  Server server;
  TeacherOptions o = Opts();
  o.context_window = 32768;
  auto port = server.Start(o);
  REQUIRE(port.ok());
  CHECK(*port > 0);
  HttpResult h = HttpCall(*port, "GET", "/health");
  CHECK(h.status == 200);
  CHECK(json::parse(h.body)["status"] == "ok");
  HttpResult m = HttpCall(*port, "GET", "/v1/models");
  REQUIRE(m.status == 200);
  json models = json::parse(m.body);
  CHECK(models["data"][0]["id"] == "seragen-scripted-teacher (not a model)");
  CHECK(models["data"][0]["max_model_len"] == 32768);
  CHECK(HttpCall(*port, "GET", "/v2/nothing").status == 404);
  CHECK(HttpCall(*port, "GET", "/v1/chat/completions").status == 405);
  HttpResult bad = HttpCall(*port, "POST", "/v1/chat/completions", "{not json");
  CHECK(bad.status == 400);
  CHECK(json::parse(bad.body)["error"]["message"].get<std::string>().find("not valid JSON") != std::string::npos);
  CHECK(server.Start(o).status().code() == seragen::StatusCode::kFailedPrecondition);
}

TEST_CASE("Start fails clearly on a missing prompts directory or a bad address") {
  Server server;
  TeacherOptions o = Opts();
  o.prompts_dir = "/nonexistent/prompts";
  auto r = server.Start(o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("rollout1.md") != std::string::npos);
  o = Opts();
  o.bind_address = "not-an-ip";
  CHECK(server.Start(o).status().message().find("bind_address") != std::string::npos);
}

TEST_CASE("Deterministic: same seed and conversation give the same bytes, across servers") {
  Server a, b, c;
  auto pa = a.Start(Opts(5));
  auto pb = b.Start(Opts(5));
  auto pc = c.Start(Opts(6));
  REQUIRE((pa.ok() && pb.ok() && pc.ok()));
  for (bool stream : {false, true}) {
    HttpResult ra = HttpCall(*pa, "POST", "/v1/chat/completions", RolloutBody(stream));
    HttpResult rb = HttpCall(*pb, "POST", "/v1/chat/completions", RolloutBody(stream));
    HttpResult ra2 = HttpCall(*pa, "POST", "/v1/chat/completions", RolloutBody(stream));
    REQUIRE(ra.status == 200);
    CHECK(ra.body == rb.body);
    CHECK(ra.body == ra2.body);
    HttpResult rc = HttpCall(*pc, "POST", "/v1/chat/completions", RolloutBody(stream));
    CHECK(rc.body != ra.body);  // another seed: at least another completion id
  }
}

TEST_CASE("Responses parse in every reasoning and stream mode over HTTP") {
  for (ReasoningMode mode :
       {ReasoningMode::kNone, ReasoningMode::kReasoning, ReasoningMode::kReasoningContent, ReasoningMode::kThinkTag}) {
    Server server;
    TeacherOptions o = Opts();
    o.knobs.reasoning = mode;
    auto port = server.Start(o);
    REQUIRE(port.ok());
    HttpResult r = HttpCall(*port, "POST", "/v1/chat/completions", RolloutBody(false));
    REQUIRE(r.status == 200);
    CHECK(r.headers["content-type"] == "application/json");
    json body = json::parse(r.body);
    CHECK(body["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "editor");
    HttpResult s = HttpCall(*port, "POST", "/v1/chat/completions", RolloutBody(true));
    REQUIRE(s.status == 200);
    CHECK(s.headers["content-type"] == "text/event-stream");
    CHECK(s.headers["transfer-encoding"] == "chunked");
    CHECK(s.body.rfind("data: ", 0) == 0);
    CHECK(s.body.size() > 16);
    CHECK(s.body.substr(s.body.size() - 14) == "data: [DONE]\n\n");
  }
}

TEST_CASE("A scripted rollout driven over HTTP ends with a confirmed submit") {
  Server server;
  auto port = server.Start(Opts(9));
  REQUIRE(port.ok());
  FakeTools tools(FixtureRepo());
  json messages = {{{"role", "system"}, {"content", ReadPrompt("system.md")}},
                   {{"role", "user"}, {"content", Rollout1Prompt("parse_config", "pkg/config.py", 2)}}};
  int turns = 0;
  while (tools.submits() < 2 && turns++ < 20) {
    HttpResult r = HttpCall(*port, "POST", "/v1/chat/completions",
                            json{{"model", "m"}, {"messages", messages}, {"tools", ToolsJson()}}.dump());
    REQUIRE(r.status == 200);
    json msg = json::parse(r.body)["choices"][0]["message"];
    REQUIRE(msg["tool_calls"].size() == 1);
    json call = msg["tool_calls"][0];
    messages.push_back({{"role", "assistant"}, {"content", msg["content"]}, {"tool_calls", msg["tool_calls"]}});
    messages.push_back({{"role", "tool"},
                        {"tool_call_id", call["id"]},
                        {"content", tools.Run(call["function"]["name"], call["function"]["arguments"])}});
  }
  CHECK(tools.submits() == 2);
  REQUIRE(tools.edits().size() == 1);
  CHECK(tools.edits()[0].applied);
  RequestCounts counts = server.Counts();
  CHECK(counts.by_kind["rollout1"] == static_cast<std::uint64_t>(turns));
  CHECK(counts.rollout_starts["rollout1"] == 1);
}

TEST_CASE("Injected HTTP errors: 500/502/503 bodies and 429 with Retry-After") {
  struct Case {
    const char* spec;
    int status;
  };
  for (Case c : {Case{"500=1", 500}, Case{"502=1", 502}, Case{"503=1", 503}, Case{"429=1,retry_after=7", 429}}) {
    Server server;
    TeacherOptions o = Opts();
    o.faults = *ParseFaultSpec(c.spec);
    auto port = server.Start(o);
    REQUIRE(port.ok());
    HttpResult r = HttpCall(*port, "POST", "/v1/chat/completions", RolloutBody());
    CHECK(r.status == c.status);
    CHECK(json::parse(r.body)["error"]["message"].is_string());
    if (c.status == 429) CHECK(r.headers["retry-after"] == "7");
    CHECK(server.Counts().faults[std::to_string(c.status)] == 1);
    // The connection stays usable for health checks.
    CHECK(HttpCall(*port, "GET", "/health").status == 200);
  }
}

TEST_CASE("Injected transport faults: reset, truncated body, truncated stream, mid-stream error") {
  auto start = [](const char* spec, Server* server) {
    TeacherOptions o = Opts();
    o.faults = *ParseFaultSpec(spec);
    auto port = server->Start(o);
    REQUIRE(port.ok());
    return *port;
  };
  {
    Server s;
    HttpResult r = HttpCall(start("reset=1", &s), "POST", "/v1/chat/completions", RolloutBody());
    CHECK(r.status == 0);
    CHECK_FALSE(r.error.empty());
  }
  {
    Server s;
    HttpResult r = HttpCall(start("truncate=1", &s), "POST", "/v1/chat/completions", RolloutBody());
    CHECK(r.status <= 0);  // headers may arrive, the body never completes
    CHECK_FALSE(r.error.empty());
  }
  {
    Server s;
    HttpResult r = HttpCall(start("truncate=1", &s), "POST", "/v1/chat/completions", RolloutBody(true));
    CHECK(r.status <= 0);
    CHECK(r.body.find("[DONE]") == std::string::npos);
  }
  {
    Server s;
    HttpResult r = HttpCall(start("midstream=1", &s), "POST", "/v1/chat/completions", RolloutBody(true));
    CHECK(r.status == 200);
    CHECK(r.body.find("data: {\"error\":") != std::string::npos);
    CHECK(r.body.find("[DONE]") == std::string::npos);
    // midstream never applies to non-streaming requests
    CHECK(HttpCall(s.port(), "POST", "/v1/chat/completions", RolloutBody(false)).status == 200);
  }
}

TEST_CASE("Hang past the client deadline, and Stop() ends hung connections") {
  Server server;
  TeacherOptions o = Opts();
  o.faults = *ParseFaultSpec("hang=1,hang_seconds=600");
  auto port = server.Start(o);
  REQUIRE(port.ok());
  HttpResult r = HttpCall(*port, "POST", "/v1/chat/completions", RolloutBody(), 200);
  CHECK(r.status == 0);
  CHECK_FALSE(r.error.empty());
  std::atomic<bool> finished{false};
  std::thread client([&] {
    HttpCall(*port, "POST", "/v1/chat/completions", RolloutBody(), 60000);
    finished = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  server.Stop();
  client.join();  // would take 600 s (or 60 s) if Stop left the connection open
  CHECK(finished);
}

TEST_CASE("Context overflow: a 400 with a recognisable message when the prompt exceeds the window") {
  Server server;
  TeacherOptions o = Opts();
  o.context_window = 100;
  auto port = server.Start(o);
  REQUIRE(port.ok());
  HttpResult r = HttpCall(*port, "POST", "/v1/chat/completions", RolloutBody(true));
  CHECK(r.status == 400);
  CHECK(json::parse(r.body)["error"]["message"].get<std::string>().find("maximum context length is 100 tokens") !=
        std::string::npos);
  CHECK(server.Counts().faults["overflow"] == 1);
}

TEST_CASE("A retried request can succeed: faults are drawn per attempt") {
  Server server;
  TeacherOptions o = Opts(3);
  o.faults = *ParseFaultSpec("503=0.5");
  auto port = server.Start(o);
  REQUIRE(port.ok());
  int ok = 0;
  int failed = 0;
  std::string first_ok;
  for (int i = 0; i < 30; ++i) {
    HttpResult r = HttpCall(*port, "POST", "/v1/chat/completions", RolloutBody());
    if (r.status == 200) {
      ++ok;
      if (first_ok.empty()) first_ok = r.body;
      CHECK(r.body == first_ok);  // successes are byte-identical
    } else {
      CHECK(r.status == 503);
      ++failed;
    }
  }
  CHECK(ok > 5);
  CHECK(failed > 5);
}

TEST_CASE("Request log counts kinds and rollout starts, and writes JSON lines") {
  seragen::testing::TempDir dir;
  Server server;
  TeacherOptions o = Opts();
  o.request_log_path = dir.Sub("logs/requests.jsonl");
  auto port = server.Start(o);
  REQUIRE(port.ok());
  HttpCall(*port, "POST", "/v1/chat/completions", RolloutBody());
  HttpCall(*port, "POST", "/v1/chat/completions", RolloutBody(true));
  HttpCall(*port, "GET", "/v1/models");
  server.Stop();
  RequestCounts c = server.Counts();
  CHECK(c.total == 3);
  CHECK(c.by_kind["rollout1"] == 2);
  CHECK(c.rollout_starts["rollout1"] == 2);
  CHECK(c.by_kind["models"] == 1);
  std::ifstream in(dir.Sub("logs/requests.jsonl"));
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    json j = json::parse(line);
    CHECK(j.contains("digest"));
    CHECK(j.contains("kind"));
    ++lines;
  }
  CHECK(lines == 3);
}

TEST_CASE("Keep-alive, Expect: 100-continue and many concurrent connections") {
  namespace beast = boost::beast;
  namespace http = beast::http;
  namespace net = boost::asio;
  Server server;
  auto port = server.Start(Opts());
  REQUIRE(port.ok());
  {
    net::io_context ioc;
    beast::tcp_stream stream(ioc);
    stream.connect(net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(*port)));
    for (int i = 0; i < 3; ++i) {  // three requests on one connection
      http::request<http::string_body> req(http::verb::post, "/v1/chat/completions", 11);
      req.set(http::field::host, "x");
      if (i == 1) req.set(http::field::expect, "100-continue");
      req.body() = RolloutBody(i == 2);
      req.prepare_payload();
      http::write(stream, req);
      beast::flat_buffer buffer;
      http::response<http::string_body> res;
      http::read(stream, buffer, res);
      if (res.result_int() == 100) http::read(stream, buffer, res);
      CHECK(res.result_int() == 200);
      CHECK(res.keep_alive());
    }
  }
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 24; ++t) {
    clients.emplace_back([&, t] {
      for (int i = 0; i < 3; ++i) {
        if (HttpCall(*port, "POST", "/v1/chat/completions", RolloutBody(t % 2 == 0)).status == 200) ++ok;
      }
    });
  }
  for (auto& c : clients) c.join();
  CHECK(ok == 72);
}

TEST_CASE("Banner says it is a scripted stand-in, not a model") {
  std::string banner = TeacherBanner(Opts(), 8765);
  CHECK(banner.find("not a language model") != std::string::npos);
  CHECK(banner.find("http://127.0.0.1:8765/v1") != std::string::npos);
  CHECK(Opts().model_id.find("not a model") != std::string::npos);
}

TEST_CASE("RunTeacherCommand serves until SIGTERM and returns 0, bad options return 2") {
  TeacherOptions o = Opts();
  int rc = -1;
  std::thread runner([&] { rc = RunTeacherCommand(o); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  pthread_kill(runner.native_handle(), SIGTERM);  // blocked in that thread, so sigwait takes it
  runner.join();
  CHECK(rc == 0);
  TeacherOptions bad = Opts();
  bad.prompts_dir = "/nonexistent";
  int rc_bad = -1;
  std::thread failing([&] { rc_bad = RunTeacherCommand(bad); });
  failing.join();
  CHECK(rc_bad == 2);
}

TEST_CASE("Rollout starts count clean first turns only, not retries after faults") {
  Server server;
  TeacherOptions o = Opts(3);
  o.faults = *ParseFaultSpec("503=0.5");
  auto port = server.Start(o);
  REQUIRE(port.ok());
  int ok = 0;
  for (int i = 0; i < 12; ++i) {
    if (HttpCall(*port, "POST", "/v1/chat/completions", RolloutBody()).status == 200) ++ok;
  }
  RequestCounts c = server.Counts();
  CHECK(c.by_kind["rollout1"] == 12);
  CHECK(c.rollout_starts["rollout1"] == static_cast<std::uint64_t>(ok));
  CHECK(c.faults["503"] == static_cast<std::uint64_t>(12 - ok));
}
