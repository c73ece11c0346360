#include "seragen/llm/server_load_poller.h"

#include <catch2/catch.hpp>

namespace seragen::llm {
namespace {

// Records requests; the test answers them.
class FakeHttp final : public http::Client {
 public:
  struct Pending {
    http::Request request;
    std::function<void(http::Response)> done;
  };
  std::vector<Pending> pending;
  std::shared_ptr<http::Call> Send(http::Request request, std::function<void(http::Response)> done) override {
    pending.push_back({std::move(request), std::move(done)});
    return nullptr;
  }
  void Answer(std::size_t i, int status, std::string body) {
    http::Response r;
    r.status = status;
    r.body = std::move(body);
    auto done = std::move(pending.at(i).done);
    done(std::move(r));
  }
};

EndpointOptions Endpoint(std::string url) {
  EndpointOptions e;
  e.base_url = std::move(url);
  return e;
}

}  // namespace

TEST_CASE("load poller: reads each server's /metrics and forgets stale or unknown answers", "[llm][metrics]") {
  FakeHttp http;
  FakeClock clock;
  ServerLoadPoller poller(http, clock, {Endpoint("http://gpu0:8000/v1"), Endpoint("http://gpu1:8000/v1")});
  CHECK_FALSE(poller.Latest(std::chrono::seconds(10))[0].has_value());
  poller.Poll();
  REQUIRE(http.pending.size() == 2);
  CHECK(http.pending[0].request.url == "http://gpu0:8000/metrics");
  CHECK(http.pending[0].request.max_body_bytes == std::size_t{8} << 20);
  poller.Poll();  // the first requests are not answered yet: nothing more is sent
  CHECK(http.pending.size() == 2);
  http.Answer(0, 200, "vllm:num_requests_running 12\nvllm:num_requests_waiting 3\n");
  http.Answer(1, 404, "not found");
  auto latest = poller.Latest(std::chrono::seconds(10));
  REQUIRE(latest[0].has_value());
  CHECK(latest[0]->running == 12);
  CHECK(latest[0]->waiting == 3);
  CHECK_FALSE(latest[1].has_value());
  clock.Advance(std::chrono::seconds(11));
  CHECK_FALSE(poller.Latest(std::chrono::seconds(10))[0].has_value());
  poller.Poll();
  REQUIRE(http.pending.size() == 4);
  http.Answer(2, 200, "vllm:num_requests_running lots\n");  // refused: no load
  CHECK_FALSE(poller.Latest(std::chrono::seconds(10))[0].has_value());
}

TEST_CASE("load poller: an answer after the poller is gone is dropped", "[llm][metrics]") {
  FakeHttp http;
  FakeClock clock;
  auto poller = std::make_unique<ServerLoadPoller>(http, clock, std::vector<EndpointOptions>{Endpoint("http://a/v1")});
  poller->Poll();
  poller.reset();
  http.Answer(0, 200, "vllm:num_requests_running 1\n");  // no crash, nothing kept
  SUCCEED();
}

}  // namespace seragen::llm
