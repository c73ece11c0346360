#include "seragen/llm/startup_check.h"

#include <catch2/catch.hpp>

#include <algorithm>

#include "http/replay_server.h"
#include "llm/llm_fixtures.h"
#include "seragen/llm/commands.h"

namespace seragen::llm {
namespace {

using testing::ReplayServer;
using testing::ScriptedReply;

// The start-up check over scripted probe answers: round r of endpoint i
// answers rounds[r][i] (the last round repeats); pauses advance a fake clock.
struct FakeStartup {
  std::vector<std::vector<EndpointProbe>> rounds;
  FakeClock clock;
  int probes = 0;
  StartupCheckOptions options;

  FakeStartup(std::size_t endpoints, std::chrono::seconds wait) {
    for (std::size_t i = 0; i < endpoints; ++i) {
      options.endpoints.push_back({"llm.endpoints[" + std::to_string(i) + "]", "llm.api_key"});
    }
    options.wait = wait;
  }
  Result<std::string> Run() {
    StartupCheckDeps deps;
    deps.clock = &clock;
    deps.pause = [this](std::chrono::milliseconds d) { clock.Advance(d); };
    deps.probe = [this](std::size_t i) {
      const std::size_t round = std::min<std::size_t>(probes++ / options.endpoints.size(), rounds.size() - 1);
      return rounds[round][i];
    };
    return CheckEndpointsAndChooseModel(options, deps, log::Logger("test"));
  }
};

// Runs the check and expects it to fail with `code` and exactly `message`.
void ExpectFailure(FakeStartup& f, StatusCode code, const std::string& message) {
  Result<std::string> r = f.Run();
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == code);
  CHECK(r.status().message() == message);
}

EndpointProbe Listed(std::vector<std::string> ids) { return {ProbeOutcome::kListed, std::move(ids), ""}; }
EndpointProbe NotYet(std::string detail) { return {ProbeOutcome::kNotYet, {}, std::move(detail)}; }

// The wait for a healthy endpoint over scripted probe rounds (the last
// repeats); pauses advance a fake clock and are recorded.
struct FakeWait {
  std::vector<std::vector<EndpointState>> rounds;
  FakeClock clock;
  int probes = 0;
  std::vector<std::chrono::milliseconds> pauses;

  Status Run(std::chrono::milliseconds wait) {
    EndpointWaitDeps deps;
    deps.clock = &clock;
    deps.pause = [this](std::chrono::milliseconds d) {
      pauses.push_back(d);
      clock.Advance(d);
    };
    deps.probe_all = [this] { return rounds[std::min<std::size_t>(probes++, rounds.size() - 1)]; };
    return WaitForAnEndpoint(wait, deps, log::Logger("test"));
  }
};

EndpointState Endpoint(std::string url, bool ejected) {
  EndpointState e;
  e.base_url = std::move(url);
  e.ejected = ejected;
  e.model_id = "m";
  return e;
}

}  // namespace

TEST_CASE("startup: the model sent is the configured one, or the first listed", "[llm][startup]") {
  CHECK(ChooseModel("", {"a", "b"}).model == "a");
  CHECK(ChooseModel("", {"a", "b"}).listed);
  CHECK(ChooseModel("b", {"a", "b"}).listed);
  const ModelChoice unlisted = ChooseModel("c", {"a", "b"});
  CHECK(unlisted.model == "c");
  CHECK_FALSE(unlisted.listed);
  CHECK_FALSE(ChooseModel("", {}).listed);
}

TEST_CASE("startup: a refusal names the setting to fix from its typed outcome, at once", "[llm][startup]") {
  FakeStartup keyless(2, std::chrono::seconds(60));
  keyless.options.endpoints[1].key_setting = "llm.endpoints[1].api_key";
  keyless.rounds = {{Listed({"m"}), {ProbeOutcome::kRefusedCredentials, {}, "GET u/models: HTTP 401: bad key"}}};
  ExpectFailure(keyless, StatusCode::kInvalidArgument,
                "the endpoint refused the start-up check: GET u/models: HTTP 401: bad key; fix "
                "llm.endpoints[1].api_key (the variable it names must hold a key the endpoint accepts)");
  CHECK(keyless.probes == 2);  // no waiting

  // Text that reads like an auth failure does not decide it: the outcome does.
  FakeStartup wrong_url(1, std::chrono::seconds(60));
  wrong_url.rounds = {{{ProbeOutcome::kRefusedAddress, {}, "GET u/models: HTTP 404: HTTP 401 in a page"}}};
  Result<std::string> r = wrong_url.Run();
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("fix llm.endpoints[0].base_url (the URL") != std::string::npos);
  CHECK(r.status().message().find("api_key") == std::string::npos);
}

TEST_CASE("startup: waits while no endpoint lists a model, then chooses", "[llm][startup]") {
  FakeStartup f(2, std::chrono::seconds(10));
  f.rounds = {{NotYet("a: refused"), NotYet("b: HTTP 503")},
              {NotYet("a: refused"), NotYet("b: HTTP 503")},
              {NotYet("a: refused"), Listed({"served/model", "other"})}};
  Result<std::string> r = f.Run();
  REQUIRE(r.ok());
  CHECK(*r == "served/model");
  CHECK(f.probes == 6);
}

TEST_CASE("startup: gives up after the wait, naming the silent endpoints", "[llm][startup]") {
  FakeStartup f(2, std::chrono::seconds(5));
  f.rounds = {{NotYet("GET a/models: refused"), NotYet("GET b/models: HTTP 503: loading")}};
  ExpectFailure(f, StatusCode::kUnavailable,
                "no model endpoint listed a model within 5 s (llm.startup_wait_s): GET a/models: refused, GET "
                "b/models: HTTP 503: loading");
  CHECK(f.probes == 2 * 4);  // at 0, 2, 4 and 6 s
}

TEST_CASE("startup: an unlisted model is refused unless allowed, listing what is served", "[llm][startup]") {
  FakeStartup f(2, std::chrono::seconds(0));
  f.rounds = {{Listed({"a", "b"}), Listed({"b", "c"})}};
  f.options.model = "z";
  Result<std::string> r = f.Run();
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("llm.model 'z' is not served by the endpoint(s); they list: a, b, c.") == 0);
  f.options.allow_unlisted_model = true;
  r = f.Run();
  REQUIRE(r.ok());
  CHECK(*r == "z");
}

TEST_CASE("startup: the real probe types refusals by failure class and HTTP status", "[llm][startup]") {
  struct Case {
    int status;
    const char* body;
    ProbeOutcome outcome;
  };
  for (const Case& c :
       {Case{401, R"({"error":{"message":"bad key"}})", ProbeOutcome::kRefusedCredentials},
        Case{403, R"({"error":{"message":"forbidden"}})", ProbeOutcome::kRefusedCredentials},
        Case{404, R"({"error":{"message":"HTTP 401 is not the problem"}})", ProbeOutcome::kRefusedAddress},
        Case{503, R"({"error":{"message":"Loading model"}})", ProbeOutcome::kNotYet},
        Case{200, R"({"nothing":[]})", ProbeOutcome::kRefusedAddress}}) {
    CAPTURE(c.status);
    ReplayServer server;
    server.Enqueue("/v1/models", ScriptedReply::Json(c.status, c.body));
    PingOptions options;
    options.base_url = server.base_url();
    EndpointProbe probe = ProbeEndpointModels(options);
    CHECK(probe.outcome == c.outcome);
    CHECK(probe.detail.rfind("GET " + server.base_url() + "/v1/models: ", 0) == 0);
    CHECK(probe.detail.find("[llm:") == std::string::npos);
    CHECK(probe.detail.find("[request field:") == std::string::npos);
  }
  ReplayServer server;
  server.Enqueue("/v1/models", ScriptedReply::Json(200, R"({"data":[{"id":"m1"},{"id":"m2"}]})"));
  PingOptions options;
  options.base_url = server.base_url();
  EndpointProbe listed = ProbeEndpointModels(options);
  CHECK(listed.outcome == ProbeOutcome::kListed);
  CHECK(listed.model_ids == std::vector<std::string>{"m1", "m2"});
}

TEST_CASE("startup wait: probes every 2 s until one endpoint answers, then logs each", "[llm][startup]") {
  FakeWait f;
  f.rounds = {{Endpoint("http://a/v1", true), Endpoint("http://b/v1", true)},
              {Endpoint("http://a/v1", true), Endpoint("http://b/v1", true)},
              {Endpoint("http://a/v1", true), Endpoint("http://b/v1", false)}};
  std::string lines;
  Status s;
  {
    log::ScopedCapture capture(&lines);
    s = f.Run(std::chrono::seconds(10));
  }
  CHECK(s.ok());
  CHECK(f.probes == 3);
  CHECK(f.pauses == std::vector<std::chrono::milliseconds>(2, std::chrono::seconds(2)));
  CHECK(lines.find("no model endpoint answers yet (http://a/v1, http://b/v1); waiting up to 10 s") !=
        std::string::npos);
  CHECK(lines.find("endpoint http://a/v1 did not answer its health probe") != std::string::npos);
  CHECK(lines.find("endpoint http://b/v1 serves 'm' (context window unknown)") != std::string::npos);
}

TEST_CASE("startup wait: Unavailable naming the silent endpoints once the wait is over", "[llm][startup]") {
  FakeWait f;
  f.rounds = {{Endpoint("http://a/v1", true), Endpoint("http://b/v1", true)}};
  Status s = f.Run(std::chrono::seconds(5));
  CHECK(s.code() == StatusCode::kUnavailable);
  CHECK(s.message() ==
        "no model endpoint answered its health probe within 5 s (llm.startup_wait_s): http://a/v1, http://b/v1");
  // The last pause ends exactly at the deadline.
  CHECK(f.pauses == std::vector<std::chrono::milliseconds>{std::chrono::seconds(2), std::chrono::seconds(2),
                                                           std::chrono::seconds(1)});
  CHECK(f.probes == 4);
  FakeWait once;
  once.rounds = f.rounds;
  CHECK(once.Run(std::chrono::milliseconds(0)).code() == StatusCode::kUnavailable);
  CHECK(once.probes == 1);
  CHECK(once.pauses.empty());
  FakeWait none;
  none.rounds = {{}};
  CHECK(none.Run(std::chrono::seconds(5)).ok());
}

}  // namespace seragen::llm
