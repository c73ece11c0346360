// Classification of failed HTTP exchanges into FailureClass (pure functions,
// testable on fixture bytes). The classes and the bodies that map to them:
// docs/LLM_CLIENT.md, "Failure classes and what the client does".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "seragen/http/http_client.h"
#include "seragen/llm/failure.h"

namespace seragen::llm {

// Fields read from any known error envelope (OpenAI/vLLM nested, vLLM/SGLang
// flat, llama.cpp, OpenRouter, Anthropic, {"detail": ...}); `message` falls
// back to the (truncated) body text when nothing could be read.
struct ErrorEnvelope {
  std::string message;
  std::string type;
  std::string code;   // string or integer code, as text
  std::string param;  // the request field the server names, when it does
};
ErrorEnvelope ParseErrorBody(std::string_view body);

struct Classification {
  FailureClass failure_class = FailureClass::kNone;
  std::string message;  // one line for logs and Status messages
  // The end of `message` that names the chat-request field and the setting
  // to fix ("" when none): a check that is not a chat request names its own.
  std::string hint;
};

// A non-2xx HTTP response.
Classification ClassifyHttpError(int status, std::string_view body);
// An error object found inside a 2xx body or stream chunk.
Classification ClassifyInBandError(const ErrorEnvelope& info);
// A transport failure (no usable HTTP response).
Classification ClassifyTransport(http::TransportError error, std::string_view detail);

// A configuration error: the server refuses a setting or needs a start flag
// (docs/SERVERS.md, "When the server refuses a setting"): a 4xx naming a parameter, flag, model or key, or
// llama.cpp's "requires --jinja flag" 500. Such errors are never retried.
bool LooksLikeConfigError(int status, const ErrorEnvelope& info);

// Where a configuration error comes from: the request field the server
// objects to and the seragen config key (or server start flag) that
// controls it. Empty strings when unknown.
struct ConfigHint {
  std::string field;       // e.g. "max_tokens"
  std::string config_key;  // e.g. "llm.max_tokens_field"
};
ConfigHint HintForConfigError(int status, const ErrorEnvelope& info);

// Context-overflow wording (case-insensitive matcher list; the wordings are
// the f5 fixtures in tests/llm/fixtures/errors).
bool LooksLikeContextOverflow(std::string_view text);
// vLLM's "'max_tokens' or 'max_completion_tokens' is too large" family.
bool LooksLikeOutputBudget(std::string_view text);

// For an output-budget error: the largest max_tokens the server would accept,
// from "maximum context length is C ... has I input tokens" (C - I - margin),
// when the message gives both numbers.
std::optional<long long> SuggestedMaxTokens(std::string_view message, long long margin);

}  // namespace seragen::llm
