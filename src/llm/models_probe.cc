#include "seragen/llm/models_probe.h"

#include <algorithm>

#include "llm/json_util.h"

namespace seragen::llm {

using internal::IntField;
using internal::Json;
using internal::StringOr;

namespace {

// An id seragen would send as `model`: at most kMaxServedModelIdBytes, no
// control bytes. Anything else is the endpoint's to forge (a 1 MB id copied
// into every request, terminal escapes in `llm ping`).
bool UsableId(std::string_view id) {
  if (id.empty() || id.size() > kMaxServedModelIdBytes) return false;
  return std::none_of(id.begin(), id.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return b < 0x20 || b == 0x7f;
  });
}

// Other texts of an entry are shown, never sent: clipped.
std::string Clipped(std::string text) {
  if (text.size() > kMaxServedModelIdBytes) text.resize(kMaxServedModelIdBytes);
  return text;
}

}  // namespace

Result<ModelsReport> ParseModelsResponse(std::string_view body) {
  auto parsed = internal::TryParse(body);
  if (!parsed || !parsed->is_object()) return ParseError("/models response is not a JSON object");
  auto data = parsed->find("data");
  if (data == parsed->end() || !data->is_array()) return ParseError("/models response has no \"data\" list");
  ModelsReport report;
  bool openrouter_shape = false;
  for (const auto& entry : *data) {
    if (!entry.is_object()) continue;
    ModelInfo m;
    m.id = StringOr(entry, "id");
    if (!UsableId(m.id)) {
      report.unusable_ids += m.id.empty() ? 0 : 1;
      continue;
    }
    m.owned_by = Clipped(StringOr(entry, "owned_by"));
    m.parent = Clipped(StringOr(entry, "parent"));
    if (auto v = IntField(entry, "max_model_len")) {
      m.context_window = *v;
      m.context_source = "max_model_len";
    } else if (auto c = IntField(entry, "context_length")) {
      openrouter_shape = true;
      m.context_window = *c;
      m.context_source = "context_length";
      if (auto tp = entry.find("top_provider"); tp != entry.end() && tp->is_object()) {
        if (auto t = IntField(*tp, "context_length"); t && *t < *c) {
          m.context_window = *t;
          m.context_source = "top_provider.context_length";
        }
      }
    } else if (auto meta = entry.find("meta"); meta != entry.end() && meta->is_object()) {
      if (auto t = IntField(*meta, "n_ctx_train")) {
        m.context_window = *t;  // training context; /props has the served one
        m.context_source = "meta.n_ctx_train";
      }
    }
    report.models.push_back(std::move(m));
  }
  if (report.models.empty() && report.unusable_ids > 0) {
    return ParseError("/models response lists no usable model id (" + std::to_string(report.unusable_ids) + " over " +
                      std::to_string(kMaxServedModelIdBytes) + " bytes or with control characters)");
  }
  if (report.models.empty()) return ParseError("/models response lists no models");
  const std::string& owner = report.models.front().owned_by;
  if (owner == "vllm" || owner == "sglang" || owner == "llamacpp") report.server_kind = owner;
  else if (openrouter_shape) report.server_kind = "openrouter";
  else if (owner == "openai" || owner == "system" || owner == "openai-internal") report.server_kind = "openai";
  return report;
}

Result<std::int64_t> ParseLlamaCppPropsContext(std::string_view body) {
  auto parsed = internal::TryParse(body);
  if (!parsed || !parsed->is_object()) return ParseError("/props response is not a JSON object");
  if (auto s = parsed->find("default_generation_settings"); s != parsed->end() && s->is_object()) {
    if (auto n = IntField(*s, "n_ctx")) return *n;
  }
  if (auto n = IntField(*parsed, "n_ctx")) return *n;
  return ParseError("/props response has no default_generation_settings.n_ctx");
}

}  // namespace seragen::llm
