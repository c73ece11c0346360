// Parsing of /v1/models (health and identity probe) and llama.cpp /props,
// to learn the served model ids and the context window.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::llm {

struct ModelInfo {
  std::string id;        // send this exact string as `model`
  std::string owned_by;  // vllm, sglang, llamacpp, openai, system, ...
  std::string parent;    // LoRA adapters name their base model
  std::optional<std::int64_t> context_window;
  std::string context_source;  // max_model_len, context_length, top_provider.context_length, meta.n_ctx_train
};

// Longest model id taken from /models; longer ids, and ids with control
// characters, are left out of the report (owned_by and parent are clipped).
inline constexpr std::size_t kMaxServedModelIdBytes = 256;

struct ModelsReport {
  std::vector<ModelInfo> models;
  std::size_t unusable_ids = 0;  // ids left out by the bound above
  // vllm, sglang, llamacpp, openrouter, openai or unknown (from owned_by / fields).
  std::string server_kind = "unknown";
};

// Errors (kParseError) name what is missing. An empty list is an error.
Result<ModelsReport> ParseModelsResponse(std::string_view body);

// llama.cpp GET /props -> default_generation_settings.n_ctx (or top-level n_ctx).
Result<std::int64_t> ParseLlamaCppPropsContext(std::string_view body);

}  // namespace seragen::llm
