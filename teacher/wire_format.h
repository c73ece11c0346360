// Turning a PolicyReply into OpenAI chat-completions bytes: one JSON body, or
// a list of SSE events. Also the wire-level glitches (raw tool markup, invalid
// JSON arguments, several calls in a turn) and error bodies.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "teacher/options.h"
#include "teacher/policy.h"

namespace seragen::teacher {

struct WireContext {
  std::string completion_id;  // "chatcmpl-..."
  std::int64_t created = 0;   // seconds; fixed per response for determinism
  std::string model;
  int prompt_tokens = 0;
  int cached_tokens = -1;  // usage.prompt_tokens_details.cached_tokens; < 0: not reported
  ReasoningMode reasoning = ReasoningMode::kReasoning;
  bool include_usage = false;  // streams: final usage chunk with choices []
  int piece_bytes = 24;        // streams: split text into pieces of this size
};

// Applies glitches chosen by `glitch_seed` (see PolicyKnobs rates) to a
// tool-calling reply. Replies without tool calls are left unchanged.
PolicyReply ApplyGlitches(PolicyReply reply, const PolicyKnobs& knobs, std::uint64_t glitch_seed);

// Tokens the reply would have cost (reasoning + content + arguments).
int CompletionTokens(const PolicyReply& reply);

// A complete non-streaming `chat.completion` JSON body.
std::string RenderCompletion(const PolicyReply& reply, const WireContext& context);

// SSE events, each "data: {...}\n\n", ending with "data: [DONE]\n\n".
std::vector<std::string> RenderStream(const PolicyReply& reply, const WireContext& context);

// An SSE error event as sent mid-stream ("data: {"error": ...}\n\n").
std::string RenderStreamError(const std::string& message);

// OpenAI-style error envelope {"error": {message, type, param, code}}.
std::string RenderError(const std::string& message, const std::string& type, int code);

// The vLLM-style context-overflow body (HTTP 400).
std::string RenderContextOverflow(int window, int prompt_tokens);

// GET /v1/models body (vLLM-like, with max_model_len).
std::string RenderModels(const std::string& model_id, int context_window, std::int64_t created);

}  // namespace seragen::teacher
