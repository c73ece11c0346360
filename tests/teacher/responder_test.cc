#include "teacher/responder.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "teacher/test_support.h"

using namespace seragen::teacher;
using namespace seragen::teacher::testing;
using nlohmann::json;

namespace {

std::string Body(bool stream, const std::string& extra = "") {
  json body = {{"messages", {{{"role", "user"}, {"content", Rollout1Prompt("clamp", "pkg/config.py", 13) + extra}}}},
               {"tools", ToolsJson()}};
  if (stream) body["stream"] = true;
  return body.dump();
}

TeacherOptions ResponderOptions() {
  TeacherOptions o;
  o.prompts_dir = PromptsDir();
  o.prefix_cache_blocks = 0;  // repeated bodies compare byte for byte (the cache has its own tests)
  return o;
}

}  // namespace

TEST_CASE("Latency plans: fixed, uniform within bounds, long tail, stream split") {
  TeacherOptions o = ResponderOptions();
  o.latency = *ParseLatencySpec("fixed:200");
  Responder fixed(o, Prompts());
  CHECK(fixed.PlanChat(Body(false)).delay == std::chrono::milliseconds(200));
  ResponsePlan s = fixed.PlanChat(Body(true));
  CHECK(s.delay == std::chrono::milliseconds(100));  // first=0.5 by default
  REQUIRE(s.events.size() > 2);
  CHECK(s.chunk_gap.count() == 100 / static_cast<long>(s.events.size() - 1));

  o.latency = *ParseLatencySpec("uniform:100-300");
  Responder uniform(o, Prompts());
  for (int i = 0; i < 50; ++i) {
    auto d = uniform.PlanChat(Body(false, std::to_string(i))).delay.count();
    CHECK(d >= 100);
    CHECK(d <= 300);
  }
  o.latency = *ParseLatencySpec("fixed:10,tail=0.5x100");
  Responder tail(o, Prompts());
  int slow = 0;
  for (int i = 0; i < 100; ++i) {
    auto d = tail.PlanChat(Body(false, std::to_string(i))).delay.count();
    CHECK((d == 10 || d == 1000));
    if (d == 1000) ++slow;
  }
  CHECK(slow > 25);
  CHECK(slow < 75);
  Responder zero(ResponderOptions(), Prompts());
  ResponsePlan z = zero.PlanChat(Body(true));
  CHECK(z.delay.count() == 0);
  CHECK(z.chunk_gap.count() == 0);
}

TEST_CASE("Fault draws follow the rates, vary by attempt, and never touch successful bytes") {
  TeacherOptions o = ResponderOptions();
  o.faults = *ParseFaultSpec("500=0.2,429=0.2,reset=0.1");
  Responder responder(o, Prompts());
  std::map<std::string, int> seen;
  std::string ok_body;
  for (int i = 0; i < 300; ++i) {
    ResponsePlan p = responder.PlanChat(Body(false));  // same body: attempts 0..299
    CHECK(p.record.attempt == i);
    ++seen[std::string(FaultKindName(p.fault))];
    if (p.fault == FaultKind::kNone) {
      if (ok_body.empty()) ok_body = p.body;
      CHECK(p.body == ok_body);
    }
    if (p.fault == FaultKind::k429) {
      REQUIRE(p.headers.size() == 1);
      CHECK(p.headers[0].first == "Retry-After");
    }
  }
  CHECK(seen["500"] > 30);
  CHECK(seen["429"] > 30);
  CHECK(seen["reset"] > 10);
  CHECK(seen["none"] > 110);
  // A second responder with the same seed makes the same draws in the same order.
  Responder again(o, Prompts());
  Responder first(o, Prompts());
  for (int i = 0; i < 20; ++i) CHECK(again.PlanChat(Body(false)).fault == first.PlanChat(Body(false)).fault);
}

TEST_CASE("Requests that are not chat requests get a 400 naming the problem") {
  Responder responder(ResponderOptions(), Prompts());
  ResponsePlan p = responder.PlanChat(R"({"messages": []})");
  CHECK(p.status == 400);
  CHECK(p.record.kind == "invalid");
  CHECK(json::parse(p.body)["error"]["message"].get<std::string>().find("messages") != std::string::npos);
  ResponsePlan role = responder.PlanChat(R"({"messages": [{"content": "x"}]})");
  CHECK(role.status == 400);
  CHECK(json::parse(role.body)["error"]["message"].get<std::string>().find("messages[0].role") != std::string::npos);
}
