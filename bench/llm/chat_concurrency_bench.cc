// The same load through the whole LLM client (encode, pool, classify, decode):
// 1,000 concurrent chat completions against a server answering each after
// 500 ms with a tool-call body. Prints wall, client CPU per call, peak RSS.
//   bench_llm_chat_concurrency [--requests=1000] [--delay-ms=500] [--stream=0]
#include <atomic>
#include <cstdio>
#include <future>

#include "bench_util.h"
#include "http/forked_server.h"
#include "seragen/http/curl_client.h"
#include "seragen/llm/http_chat_client.h"

using namespace seragen;

namespace {
const char* kBody =
    R"({"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,)"
    R"("reasoning":"Look at the config loader first.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash",)"
    R"("arguments":"{\"command\": \"grep -rn parse_config src/\"}"}}]},"finish_reason":"tool_calls"}],)"
    R"("usage":{"prompt_tokens":1523,"completion_tokens":31,"total_tokens":1554}})";
const char* kStream =
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning\":\"Look first.\"}}]}\n\n"
    "data: "
    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\","
    "\"function\":{\"name\":\"bash\",\"arguments\":\"{\\\"command\\\": \"}}]}}]}\n\n"
    "data: "
    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"ls\\\"}\"}}]}"
    "}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
    "data: [DONE]\n\n";
}  // namespace

int main(int argc, char** argv) {
  const long requests = bench::IntFlag(argc, argv, "requests", 1000);
  const long delay_ms = bench::IntFlag(argc, argv, "delay-ms", 500);
  const bool stream = bench::IntFlag(argc, argv, "stream", 0) != 0;
  bench::RaiseFileLimit();
  bench::ForkedServer server([delay_ms, stream](const testing::ReceivedRequest&) {
    auto reply = stream ? testing::ScriptedReply::Sse({kStream}) : testing::ScriptedReply::Json(200, kBody);
    reply.delay = std::chrono::milliseconds(delay_ms);
    return reply;
  });

  bench::Usage before = bench::ReadUsage();
  std::atomic<long> ok{0}, failed{0};
  double wall = 0;
  {
    loop::EventLoop loop;
    http::CurlClient http_client(loop);
    llm::ChatClientOptions options;
    llm::EndpointOptions endpoint;
    endpoint.base_url = "http://127.0.0.1:" + std::to_string(server.port()) + "/v1";
    options.endpoints.push_back(endpoint);
    llm::HttpChatClient client(http_client, loop, SystemClock(), options);
    llm::ChatRequest request;
    request.model = "m";
    request.messages.push_back({llm::Role::kSystem, std::string(4000, 's')});
    request.messages.push_back({llm::Role::kUser, "Fix the bug near parse_config."});
    request.tools.push_back(
        {"bash", "Run a command", R"({"type":"object","properties":{"command":{"type":"string"}}})"});
    request.max_tokens = 1024;
    llm::CallOptions call;
    call.stream = stream;
    call.attempt_timeout = std::chrono::seconds(30);
    std::promise<void> all_done;
    std::atomic<long> remaining{requests};
    auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < requests; ++i) {
      client.Complete(request, call, [&](Result<llm::ChatResponse> r) {
        if (r.ok() && r->tool_calls.size() == 1 && r->tool_calls[0].arguments_valid) ++ok;
        else ++failed;
        if (--remaining == 0) all_done.set_value();
      });
    }
    all_done.get_future().wait();
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  bench::Usage after = bench::ReadUsage();
  double cpu = after.cpu_seconds - before.cpu_seconds;
  std::printf("bench_llm_chat_concurrency: calls=%ld server_delay=%ldms stream=%d ok=%ld failed=%ld\n", requests,
              delay_ms, stream ? 1 : 0, ok.load(), failed.load());
  std::printf("  wall=%.3f s (target < 1.5 s: %s)\n", wall, wall < 1.5 ? "PASS" : "FAIL");
  std::printf("  client_cpu=%.3f s total, %.1f us/call\n", cpu, cpu * 1e6 / static_cast<double>(requests));
  std::printf("  peak_rss=%.1f MiB\n", after.peak_rss_kib / 1024.0);
  return failed == 0 ? 0 : 1;
}
