// Throughput of the scripted teacher in zero-latency mode, with a 20-turn
// agent conversation as the request body:
//   1. planning only (parse + classify + policy + render), one thread;
//   2. over HTTP/1.1 keep-alive against a server with ONE io thread, driven
//      by client threads (the clients share the machine's cores).
// Prints requests per second. Usage: bench_teacher [seconds_per_phase]
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "seragen/base/file_util.h"
#include "seragen/base/template.h"
#include "teacher/prompt_set.h"
#include "teacher/responder.h"
#include "teacher/server.h"
#include "testing/source_paths.h"

using namespace seragen;
using namespace seragen::teacher;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

const char* kFile =
    "\"\"\"Configuration loading.\"\"\"\nimport json\n\n\ndef parse_config(text, defaults):\n"
    "    \"\"\"Parse JSON text and merge it over defaults.\"\"\"\n    data = json.loads(text)\n"
    "    merged = dict(defaults)\n    merged.update(data)\n    return merged\n\n\n"
    "def clamp(value, low, high):\n    if value < low:\n        return low\n    if value > high:\n"
    "        return high\n    return value\n";

std::string Numbered(const std::string& text) {
  std::string out;
  int n = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%6d\t", ++n);
    out += prefix + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

json Tools() {
  return json::parse(R"([
    {"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}},
    {"type":"function","function":{"name":"editor","parameters":{"type":"object","properties":{
      "command":{"type":"string","enum":["view","create","str_replace","insert","undo_edit"]},
      "path":{"type":"string"},"old_str":{"type":"string"},"new_str":{"type":"string"},
      "view_range":{"type":"array","items":{"type":"integer"}}}}}},
    {"type":"function","function":{"name":"submit","parameters":{"type":"object","properties":{}}}}])");
}

std::string Body(const std::string& prompts_dir, int turns) {
  auto system = ReadFile(prompts_dir + "/system.md");
  auto tmpl = ReadFile(prompts_dir + "/rollout1.md");
  auto prompt = RenderTemplate(*tmpl, {{"function_name", "clamp"},
                                       {"file_path", "pkg/config.py"},
                                       {"category_prompt", "Empty inputs, zero and limits are handled incorrectly."},
                                       {"repo_root", "/repo"},
                                       {"test_command", ""}});
  json messages = json::array({{{"role", "system"}, {"content", *system}}, {{"role", "user"}, {"content", *prompt}}});
  for (int t = 0; t < turns; ++t) {
    std::string id = "call_" + std::to_string(t);
    bool view = t % 2 == 0;
    std::string args =
        view ? R"({"command":"view","path":"/repo/pkg/config.py"})" : R"({"command":"grep -rn \"clamp\" /repo"})";
    messages.push_back(
        {{"role", "assistant"},
         {"content", nullptr},
         {"reasoning", "Looking at the code again to be sure about the limits."},
         {"tool_calls", json::array({{{"id", id},
                                      {"type", "function"},
                                      {"function", {{"name", view ? "editor" : "bash"}, {"arguments", args}}}}})}});
    messages.push_back({{"role", "tool"},
                        {"tool_call_id", id},
                        {"content", view ? Numbered(kFile) : "/repo/pkg/config.py:13:def clamp(value, low, high):\n"}});
  }
  return json{{"model", "m"}, {"messages", messages}, {"tools", Tools()}}.dump();
}

double PlanningRate(const std::string& prompts_dir, const std::string& body, double seconds) {
  TeacherOptions o;
  o.prompts_dir = prompts_dir;
  Responder responder(o, *PromptSet::Load(prompts_dir));
  auto end = Clock::now() + std::chrono::duration<double>(seconds);
  long n = 0;
  auto start = Clock::now();
  while (Clock::now() < end) {
    ResponsePlan plan = responder.PlanChat(body);
    if (plan.status != 200) std::abort();
    ++n;
  }
  return n / std::chrono::duration<double>(Clock::now() - start).count();
}

double HttpRate(int port, const std::string& body, int clients, double seconds, bool stream) {
  namespace beast = boost::beast;
  namespace http = beast::http;
  namespace net = boost::asio;
  std::string payload = body;
  if (stream) {
    json j = json::parse(body);
    j["stream"] = true;
    payload = j.dump();
  }
  std::atomic<long> total{0};
  std::atomic<bool> failed{false};
  auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      net::io_context ioc;
      beast::tcp_stream s(ioc);
      s.connect(net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
      http::request<http::string_body> req(http::verb::post, "/v1/chat/completions", 11);
      req.set(http::field::host, "127.0.0.1");
      req.set(http::field::content_type, "application/json");
      req.body() = payload;
      req.prepare_payload();
      beast::flat_buffer buffer;
      while (Clock::now() < deadline) {
        http::write(s, req);
        http::response<http::string_body> res;
        http::read(s, buffer, res);
        if (res.result_int() != 200) failed = true;
        ++total;
      }
    });
  }
  for (auto& t : threads) t.join();
  if (failed) std::fprintf(stderr, "warning: some responses were not 200\n");
  return total / std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  const std::string prompts = seragen::testing::SourcePath("prompts");
  const std::string body = Body(prompts, 20);
  std::printf("teacher bench: 20-turn conversation body, %zu bytes, zero latency, no faults\n", body.size());
  std::printf("  planning only (1 thread):                 %8.0f requests/s\n", PlanningRate(prompts, body, seconds));
  Server server;
  TeacherOptions o;
  o.prompts_dir = prompts;
  o.threads = 1;
  auto port = server.Start(o);
  if (!port.ok()) {
    std::fprintf(stderr, "%s\n", port.status().ToString().c_str());
    return 1;
  }
  for (int clients : {1, 4}) {
    std::printf("  HTTP keep-alive, 1 io thread, %d client%s:   %8.0f requests/s (non-stream)\n", clients,
                clients == 1 ? " " : "s", HttpRate(*port, body, clients, seconds, false));
  }
  std::printf("  HTTP keep-alive, 1 io thread, 4 clients:   %8.0f requests/s (SSE stream)\n",
              HttpRate(*port, body, 4, seconds, true));
  server.Stop();
  return 0;
}
