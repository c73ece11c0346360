// 1,000 concurrent requests from one client thread (the EventLoop) to a local
// server that answers each after 500 ms. Target: all done in < 1.5 s wall.
// Prints wall time, client CPU per request and peak RSS.
//   bench_http_concurrency [--requests=1000] [--delay-ms=500]
#include <atomic>
#include <cstdio>
#include <future>

#include "bench_util.h"
#include "http/forked_server.h"
#include "seragen/http/curl_client.h"

using namespace seragen;

int main(int argc, char** argv) {
  const long requests = bench::IntFlag(argc, argv, "requests", 1000);
  const long delay_ms = bench::IntFlag(argc, argv, "delay-ms", 500);
  bench::RaiseFileLimit();
  bench::ForkedServer server([delay_ms](const testing::ReceivedRequest&) {
    auto reply = testing::ScriptedReply::Json(200, R"({"ok":true})");
    reply.delay = std::chrono::milliseconds(delay_ms);
    return reply;
  });
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/v1/chat/completions";

  bench::Usage before = bench::ReadUsage();
  std::atomic<long> ok{0}, failed{0};
  double wall = 0;
  std::size_t sockets = 0;
  {
    loop::EventLoop loop;
    http::CurlClient client(loop);
    std::promise<void> all_done;
    std::atomic<long> remaining{requests};
    auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < requests; ++i) {
      http::Request req;
      req.method = "POST";
      req.url = url;
      req.body = R"({"model":"m","messages":[{"role":"user","content":"hi"}]})";
      req.headers = {{"Content-Type", "application/json"}};
      req.timeout = std::chrono::seconds(30);
      client.Send(std::move(req), [&](http::Response r) {
        if (r.transport_ok() && r.status == 200) ++ok;
        else ++failed;
        if (--remaining == 0) all_done.set_value();
      });
    }
    all_done.get_future().wait();
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    sockets = client.OpenSockets();
  }
  bench::Usage after = bench::ReadUsage();
  double cpu = after.cpu_seconds - before.cpu_seconds;
  std::printf("bench_http_concurrency: requests=%ld server_delay=%ldms ok=%ld failed=%ld\n", requests, delay_ms,
              ok.load(), failed.load());
  std::printf("  wall=%.3f s (target < 1.5 s: %s)\n", wall, wall < 1.5 ? "PASS" : "FAIL");
  std::printf("  client_cpu=%.3f s total, %.1f us/request\n", cpu, cpu * 1e6 / static_cast<double>(requests));
  std::printf("  peak_rss=%.1f MiB, open connections at end=%zu\n", after.peak_rss_kib / 1024.0, sockets);
  return (failed == 0 && wall < 1.5) ? 0 : 1;
}
