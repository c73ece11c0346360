#include "seragen/llm/server_load.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "seragen/llm/prometheus_text.h"

namespace seragen::llm {

namespace {
// The load a body publishes; fails the test when it publishes none.
ServerLoad Published(std::string_view body) {
  auto load = ServerLoadFromMetrics(body);
  REQUIRE(load.ok());
  REQUIRE(load->has_value());
  return **load;
}
}  // namespace

// Shapes as vLLM, SGLang and llama.cpp serve them at /metrics (values made up).
TEST_CASE("server load: vLLM's gauges, summed over its engines", "[llm][metrics]") {
  const char* body =
      "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
      "# TYPE vllm:num_requests_running gauge\n"
      "vllm:num_requests_running{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 12.0\n"
      "vllm:num_requests_running{engine=\"1\",model_name=\"Qwen/Qwen3-8B\"} 4.0\n"
      "vllm:num_requests_waiting{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 3.0\n"
      "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 0.42\n"
      "vllm:kv_cache_usage_perc{engine=\"1\",model_name=\"Qwen/Qwen3-8B\"} 0.61\n"
      "vllm:iteration_tokens_total_bucket{le=\"+Inf\",model_name=\"Qwen/Qwen3-8B\"} 3.0\n";
  ServerLoad load = Published(body);
  CHECK(load.server == "vllm");
  CHECK(load.running == 16);
  CHECK(load.waiting == 3);
  CHECK(load.kv_cache_usage == Approx(0.61));
}

TEST_CASE("server load: SGLang's and llama.cpp's gauges, and older vLLM's cache gauge", "[llm][metrics]") {
  ServerLoad sglang = Published(
      "sglang:num_running_reqs{model_name=\"glm\"} 30.0\nsglang:num_queue_reqs{model_name=\"glm\"} 7.0\n"
      "sglang:token_usage{model_name=\"glm\"} 0.9\nsglang:cache_hit_rate{model_name=\"glm\"} 0.8\n");
  CHECK(sglang.server == "sglang");
  CHECK(sglang.running == 30);
  CHECK(sglang.waiting == 7);
  CHECK(sglang.kv_cache_usage == Approx(0.9));
  ServerLoad llama = Published(
      "# TYPE llamacpp:requests_processing gauge\r\nllamacpp:requests_processing 2\r\n"
      "llamacpp:requests_deferred 5\r\n");
  CHECK(llama.server == "llama.cpp");
  CHECK(llama.waiting == 5);
  CHECK(llama.kv_cache_usage == -1);
  CHECK(Published("vllm:num_requests_running 1\nvllm:gpu_cache_usage_perc 0.25 1700000000000\n").kv_cache_usage ==
        Approx(0.25));
}

TEST_CASE("server load: none published, or hostile values", "[llm][metrics]") {
  auto none = ServerLoadFromMetrics("# nothing here\nprocess_cpu_seconds_total 12.5\n");
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  auto odd = ServerLoadFromMetrics(
      "vllm:num_requests_running -4\nvllm:num_requests_waiting NaN\nvllm:kv_cache_usage_perc +Inf\n"
      "sglang:num_queue_reqs 100\n");
  REQUIRE(odd.ok());
  CHECK((*odd)->running == 0);
  CHECK((*odd)->waiting == 0);  // NaN, and another server's gauge is not added
  CHECK((*odd)->kv_cache_usage == -1);
  CHECK_THAT(ServerLoadFromMetrics("vllm:num_requests_running lots\n").status().message(),
             Catch::Contains("metrics line 1"));
  CHECK_FALSE(ServerLoadFromMetrics("vllm:num_requests_running{model=\"x} 1\n").ok());
}

TEST_CASE("prometheus text: labels, escapes, timestamps and the limits", "[llm][metrics]") {
  // Every name asked for: the broken line is refused, naming it.
  CHECK_THAT(ParsePrometheusText("m 1\n# c\n\n  m 2\nother{broken 1\n").status().message(), Catch::Contains("line 5"));
  // Only `m`: the broken line of another metric is skipped.
  auto only_m = ParsePrometheusText("m{a=\"x\\\"y\\\\z\\n\", b = \"2\",} 1.5e3 123\n  m 2\nother{broken 1\n",
                                    [](std::string_view n) { return n == "m"; });
  REQUIRE(only_m.ok());
  REQUIRE(only_m->size() == 2);
  CHECK((*only_m)[0].labels.size() == 2);
  CHECK((*only_m)[0].labels[0].second == "x\"y\\z\n");
  CHECK((*only_m)[0].value == 1500);
  CHECK((*only_m)[1].value == 2);
  PrometheusLimits small;
  small.max_bytes = 10;
  CHECK_FALSE(ParsePrometheusText("m 1\nm 2\nm 3\n", {}, small).ok());
  small = {};
  small.max_samples = 2;
  CHECK_THAT(ParsePrometheusText("m 1\nm 2\nm 3\n", {}, small).status().message(), Catch::Contains("line 3"));
  small = {};
  small.max_labels = 1;
  CHECK_FALSE(ParsePrometheusText("m{a=\"1\",b=\"2\"} 1\n", {}, small).ok());
  small = {};
  small.max_label_value_bytes = 3;
  CHECK_FALSE(ParsePrometheusText("m{a=\"1234\"} 1\n", {}, small).ok());
  CHECK(std::isinf(ParsePrometheusText("m +Inf\n")->front().value));
  CHECK_FALSE(ParsePrometheusText("m 1x\n").ok());
  CHECK_FALSE(ParsePrometheusText("m{a=\"1\"}1\n").ok());
  CHECK_FALSE(ParsePrometheusText("m\n").ok());
}

}  // namespace seragen::llm
