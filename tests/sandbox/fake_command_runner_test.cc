#include "testing/fake_command_runner.h"

#include <catch2/catch.hpp>

namespace seragen::sandbox {
namespace {

TEST_CASE("fake runner answers from the queue, then a default, and records requests", "[sandbox][fake]") {
  FakeCommandRunner fake;
  fake.EnqueueOutput("one\n", 0);
  fake.Enqueue(UnavailableError("sandbox down"));
  RunLimits limits;
  limits.timeout = std::chrono::seconds(3);
  auto a = fake.Run("ls", limits);
  REQUIRE(a.ok());
  CHECK(a->output == "one\n");
  auto b = fake.Run("cat x", limits);
  CHECK(b.status().code() == StatusCode::kUnavailable);
  auto c = fake.Run("true", limits);
  REQUIRE(c.ok());
  CHECK(c->exit_code == 0);
  REQUIRE(fake.requests().size() == 3);
  CHECK(fake.requests()[1].command == "cat x");
  CHECK(fake.limits_seen()[0].timeout == std::chrono::seconds(3));
  CHECK(fake.VisibleRoot() == "/repo");
}

TEST_CASE("fake runner handler sees the request", "[sandbox][fake]") {
  FakeCommandRunner fake("/work");
  fake.SetHandler([](const CommandRequest& req, const RunLimits&) -> Result<CommandResult> {
    CommandResult r;
    r.exit_code = req.command == "fail" ? 1 : 0;
    r.output = "ran " + req.command;
    return r;
  });
  CHECK(fake.Run("fail", RunLimits{})->exit_code == 1);
  CHECK(fake.Run("ok", RunLimits{})->output == "ran ok");
  CHECK(fake.VisibleRoot() == "/work");
}

}  // namespace
}  // namespace seragen::sandbox
