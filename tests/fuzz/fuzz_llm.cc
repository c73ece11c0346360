// Targets for the llm module: SSE assembly, response decoding, tool arguments,
// the servers' /metrics.
#include <nlohmann/json.hpp>

#include <string>

#include "fuzz/fuzz_targets.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/utf8.h"
#include "seragen/llm/prometheus_text.h"
#include "seragen/llm/server_load.h"
#include "seragen/llm/sse_assembler.h"
#include "seragen/llm/wire_codec.h"

namespace seragen::fuzz {
namespace {

std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Valid arguments are a JSON object within the depth bound.
void CheckCall(const llm::ToolCall& call) {
  if (!call.arguments_valid) return;
  SERAGEN_FUZZ_CHECK(CheckJsonDepth(call.arguments_json, "arguments", kMaxToolArgumentsDepth).ok());
  auto j = nlohmann::json::parse(call.arguments_json, nullptr, /*allow_exceptions=*/false);
  SERAGEN_FUZZ_CHECK(!j.is_discarded() && j.is_object());
}

// A decoded answer goes back into the history of the next request.
void CheckResendable(const llm::ChatResponse& r) {
  for (const auto& c : r.tool_calls) CheckCall(c);
  llm::ChatRequest req;
  req.model = "m";
  llm::Message m{llm::Role::kAssistant, r.content};
  m.reasoning = r.reasoning;
  m.tool_calls = r.tool_calls;
  req.messages.push_back(std::move(m));
  auto body = llm::EncodeChatRequest(req, {});
  SERAGEN_FUZZ_CHECK(body.ok());
  SERAGEN_FUZZ_CHECK(IsValidUtf8(*body));
}

}  // namespace

int FuzzSseAssembler(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks the piece size, so "\r\n" and events split anywhere.
  std::size_t piece = 1 + data[0] % 64;
  std::string_view text = AsText(data + 1, size - 1);
  llm::SseAssembler sse;
  bool ok = true;
  for (std::size_t i = 0; i < text.size(); i += piece) {
    bool fed = sse.Feed(text.substr(i, piece));
    SERAGEN_FUZZ_CHECK(ok || !fed);  // once failed, stays failed
    ok = ok && fed;
  }
  auto r = sse.Finish();
  if (r.ok()) CheckResendable(*r);
  return 0;
}

int FuzzChatResponse(const std::uint8_t* data, std::size_t size) {
  auto r = llm::DecodeChatResponse(AsText(data, size));
  if (r.ok()) CheckResendable(*r);
  return 0;
}

int FuzzToolArguments(const std::uint8_t* data, std::size_t size) {
  llm::ToolCall call;
  call.id = "c";
  call.name = "bash";
  call.arguments_raw = std::string(AsText(data, size));
  llm::ParseToolCallArguments(call);
  SERAGEN_FUZZ_CHECK(call.arguments_valid == call.arguments_error.empty());
  llm::ChatResponse r;
  r.tool_calls.push_back(call);
  CheckResendable(r);
  return 0;
}

// A server's /metrics body: parsed whole (every name wanted, small limits so
// they are reached) and as the auto concurrency reads it; loads stay sane.
int FuzzPrometheusText(const std::uint8_t* data, std::size_t size) {
  std::string_view text = AsText(data, size);
  llm::PrometheusLimits small;
  small.max_samples = 64;
  small.max_labels = 4;
  small.max_label_value_bytes = 64;
  auto all = llm::ParsePrometheusText(text, {}, small);
  if (all.ok()) {
    SERAGEN_FUZZ_CHECK(all->size() <= small.max_samples);
    for (const auto& s : *all) {
      SERAGEN_FUZZ_CHECK(!s.name.empty() && s.name.size() <= small.max_name_bytes);
      SERAGEN_FUZZ_CHECK(s.labels.size() <= small.max_labels);
      for (const auto& [k, v] : s.labels) SERAGEN_FUZZ_CHECK(!k.empty() && v.size() <= small.max_label_value_bytes);
    }
  }
  auto load = llm::ServerLoadFromMetrics(text);
  if (load.ok() && load->has_value()) {
    const llm::ServerLoad& l = **load;
    SERAGEN_FUZZ_CHECK(l.running >= 0 && l.running <= 1e12 && l.waiting >= 0 && l.waiting <= 1e12);
    SERAGEN_FUZZ_CHECK(l.kv_cache_usage == -1 || (l.kv_cache_usage >= 0 && l.kv_cache_usage <= 1));
    SERAGEN_FUZZ_CHECK(!l.server.empty());
  }
  return 0;
}

}  // namespace seragen::fuzz
