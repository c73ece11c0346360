#include "llm/error_classifier.h"

#include <algorithm>
#include <cctype>

#include "llm/json_util.h"
#include "seragen/base/strings.h"

namespace seragen::llm {

using internal::Json;
using internal::StringOr;

namespace {

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

std::string CodeText(const Json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_integer() || j.is_number_unsigned()) return std::to_string(j.get<long long>());
  return {};
}

std::string OneLine(std::string_view text, std::size_t limit = 400) {
  std::string out;
  for (char c : text) {
    if (out.size() >= limit) {
      out += "...";
      break;
    }
    out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  std::size_t lead = 0;
  while (lead < out.size() && out[lead] == ' ') ++lead;
  return out.substr(lead);
}

void ReadEnvelope(const Json& e, ErrorEnvelope& info) {
  info.message = StringOr(e, "message");
  info.type = StringOr(e, "type");
  if (auto it = e.find("code"); it != e.end()) info.code = CodeText(*it);
  info.param = StringOr(e, "param");
}

std::string Describe(const ErrorEnvelope& info) {
  std::string out = info.message;
  if (!info.type.empty()) out += " (type=" + info.type;
  if (!info.code.empty()) out += (info.type.empty() ? " (" : ", ") + std::string("code=") + info.code;
  if (!info.type.empty() || !info.code.empty()) out += ")";
  return OneLine(out);
}

bool LooksLikeQuota(const ErrorEnvelope& info, const std::string& text) {
  if (Contains(text, "insufficient_quota") || Contains(text, "exceeded your current quota")) return true;
  if (Contains(text, "requires more credits") || Contains(text, "insufficient credits")) return true;
  // Together labels plain rate limits "credit_limit": only call it quota
  // when the wording is not about a rate.
  if (AsciiLower(info.type) == "credit_limit" && !Contains(text, "rate limit")) return true;
  return false;
}

}  // namespace

bool LooksLikeOutputBudget(std::string_view text) {
  std::string t = AsciiLower(text);
  if (Contains(t, "'max_tokens' or 'max_completion_tokens' is too large")) return true;
  if (Contains(t, "cannot be greater than max_model_len")) return true;
  if ((Contains(t, "max_tokens") || Contains(t, "max_completion_tokens")) && Contains(t, "too large")) return true;
  return Contains(t, "output tokens and your prompt contains");
}

bool LooksLikeContextOverflow(std::string_view text) {
  static constexpr std::string_view kMatchers[] = {
      "context_length_exceeded",
      "exceed_context_size_error",
      "maximum context length",
      "is longer than the model's context length",
      "is longer than the maximum model length",
      "exceeds the available context size",
      "exceeds context size",
      "model's context length is only",
      "requested token count exceeds",
      "prompt is too long",
      "request too large",
  };
  std::string t = AsciiLower(text);
  return std::any_of(std::begin(kMatchers), std::end(kMatchers), [&](std::string_view m) { return Contains(t, m); });
}

ErrorEnvelope ParseErrorBody(std::string_view body) {
  ErrorEnvelope info;
  auto parsed = internal::TryParse(body);
  if (parsed && parsed->is_object()) {
    const Json& j = *parsed;
    auto err = j.find("error");
    if (err != j.end() && err->is_object()) {
      ReadEnvelope(*err, info);  // OpenAI, vLLM >= 0.10.1, llama.cpp, OpenRouter, Anthropic
    } else if (err != j.end() && err->is_string()) {
      info.message = err->get<std::string>();
    } else if (StringOr(j, "object") == "error" || j.contains("message")) {
      ReadEnvelope(j, info);  // vLLM <= 0.10.0, SGLang flat envelope
    } else if (auto d = j.find("detail"); d != j.end()) {
      info.message = d->is_string() ? d->get<std::string>() : internal::Dump(*d);
    }
  }
  if (info.message.empty()) info.message = OneLine(body, 300);
  return info;
}

Classification ClassifyInBandError(const ErrorEnvelope& info) {
  std::string text = AsciiLower(info.message + " " + info.type + " " + info.code);
  Classification c;
  c.message = Describe(info);
  if (LooksLikeOutputBudget(text)) c.failure_class = FailureClass::kOutputBudget;
  else if (LooksLikeContextOverflow(text)) c.failure_class = FailureClass::kContextOverflow;
  else if (LooksLikeQuota(info, text)) c.failure_class = FailureClass::kQuota;
  else if (info.code == "429" || Contains(text, "rate limit") || Contains(text, "rate_limit"))
    c.failure_class = FailureClass::kRateLimited;
  else c.failure_class = FailureClass::kTransientServer;
  return c;
}

Classification ClassifyHttpError(int status, std::string_view body) {
  ErrorEnvelope info = ParseErrorBody(body);
  std::string text = AsciiLower(info.message + " " + info.type + " " + info.code);
  Classification c;
  c.message = "HTTP " + std::to_string(status) + ": " + Describe(info);
  auto set = [&](FailureClass k) {
    c.failure_class = k;
    return c;
  };
  if (LooksLikeOutputBudget(text)) return set(FailureClass::kOutputBudget);
  if (LooksLikeContextOverflow(text) || status == 413) return set(FailureClass::kContextOverflow);
  if (status == 402 || LooksLikeQuota(info, text)) return set(FailureClass::kQuota);
  if (LooksLikeConfigError(status, info)) {
    ConfigHint hint = HintForConfigError(status, info);
    if (!hint.field.empty() || !hint.config_key.empty()) {
      c.hint = " [request field: " + (hint.field.empty() ? std::string("-") : hint.field) +
               "; fix: " + (hint.config_key.empty() ? std::string("-") : hint.config_key) + "]";
      c.message += c.hint;
    }
    return set(FailureClass::kConfig);
  }
  if (status == 429 || Contains(text, "rate_limit_error")) return set(FailureClass::kRateLimited);
  if (status == 503) {
    if (Contains(text, "loading") || Contains(text, "no_available_workers") || Contains(text, "not ready"))
      return set(FailureClass::kServerNotReady);
    return set(FailureClass::kTransientServer);
  }
  if (status == 408 || status == 409 || status >= 500) return set(FailureClass::kTransientServer);
  if (status >= 400) return set(FailureClass::kBadRequest);
  return set(FailureClass::kTransientServer);  // 1xx/3xx where a body was expected
}

namespace {

// Wording of servers refusing a setting (docs/SERVERS.md, "When the server refuses a setting").
// Lower case; matched as substrings.
constexpr std::string_view kConfigPhrases[] = {
    // server start flags
    "requires --jinja flag",
    "tool choice requires",
    "requires --enable-auto-tool-choice",
    "requires --tool-call-parser",
    "--trust-request-chat-template",
    "image input is not supported",
    // OpenAI parameter checks
    "unsupported parameter",
    "unsupported value",
    "unrecognized request argument",
    "at the same time is not supported",
    "is only allowed when 'stream' is enabled",
    "invalid 'tools'",
    "function tools with reasoning_effort",
    // vLLM / SGLang range and shape checks
    "validation error",
    "input should be",
    "extra inputs are not permitted",
    "must be in [",
    "must be in (",
    "must be non-negative",
    "must be a non-negative",
    "must be greater than zero",
    "must be -1",
    "must be 0 (disable)",
    "must be at least",
    "must be less than or equal to max_tokens",
    "stop cannot contain an empty string",
    "must be 1 when using greedy sampling",
    "`logprobs` must be set",
    "`top_logprobs` must be",
    "requested sample logprobs",
    "stream options can only be defined",
    "must not be an empty array",
    "when using `tool_choice`",
    "invalid value for `tool_choice`",
    "does not match any of the specified `tools`",
    "tools cannot be empty if tool choice",
    "not found in tools list",
    "has invalid 'parameters' schema",
    "schema_ is required",
    "reasoning_effort must not be",
    "does not support reasoning_effort",
    "tool call id was",
    "logit_bias must",
    // llama.cpp
    "value must be between",
    "invalid tool_choice",
    "response_format type must be one of",
    "cannot use custom grammar constraints with tools",
    "cannot use both json_schema and grammar",
    "invalid type for",
    "logprobs is not supported with tools",
    "top_logprobs requires logprobs",
    "only one completion choice is allowed",
};

// OpenAI error codes that mean "this setting is not accepted".
constexpr std::string_view kConfigCodes[] = {
    "unsupported_parameter", "unsupported_value", "invalid_parameter_combination",
    "empty_array",           "invalid_api_key",   "model_not_found"};

}  // namespace

bool LooksLikeConfigError(int status, const ErrorEnvelope& info) {
  if (status == 401 || status == 403 || status == 404 || status == 422) return true;
  const std::string text = AsciiLower(info.message);
  const std::string code = AsciiLower(info.code);
  for (auto c : kConfigCodes)
    if (code == c) return true;
  bool phrase = std::any_of(std::begin(kConfigPhrases), std::end(kConfigPhrases),
                            [&](std::string_view p) { return Contains(text, p); });
  // The flag errors come back as HTTP 500 from llama.cpp: never "transient".
  if (Contains(text, "requires --jinja flag") || Contains(text, "image input is not supported")) return true;
  if (status < 400 || status >= 500) return false;
  if (phrase) return true;
  // A 400 whose envelope names a request parameter (other than the messages
  // themselves or the prompt size) objects to a setting.
  std::string param = AsciiLower(info.param);
  return status == 400 && !param.empty() && param.rfind("messages", 0) != 0 && param != "input_tokens" &&
         param != "body.messages";
}

ConfigHint HintForConfigError(int status, const ErrorEnvelope& info) {
  const std::string text = AsciiLower(info.message + " " + info.param);
  struct Row {
    std::string_view needle;
    std::string_view field;
    std::string_view key;
  };
  static constexpr Row kRows[] = {
      {"--jinja", "tools", "server flag: start llama-server with --jinja (docs/SERVERS.md)"},
      {"tool choice requires", "tool_choice",
       "server flags: vLLM --enable-auto-tool-choice --tool-call-parser NAME (or llm.tool_choice)"},
      {"--tool-call-parser", "tool_choice", "server flag: vLLM --tool-call-parser NAME (or llm.tool_choice)"},
      {"--trust-request-chat-template", "chat_template", "llm.extra_body"},
      {"'max_tokens'", "max_tokens", "llm.max_tokens_field (or llm.server)"},
      {"max_completion_tokens", "max_completion_tokens", "llm.max_tokens_field (or llm.server)"},
      {"max_tokens", "max_tokens", "llm.max_tokens_field (or llm.server)"},
      {"temperature", "temperature", "llm.sampling_fields (or llm.temperature, llm.server)"},
      {"top_p", "top_p", "llm.sampling_fields (or llm.top_p, llm.server)"},
      {"parallel_tool_calls", "parallel_tool_calls", "llm.parallel_tool_calls (or llm.server)"},
      {"seed", "seed", "llm.send_seed"},
      {"stream", "stream_options", "llm.stream"},
      {"reasoning_effort", "reasoning_effort", "llm.extra_body"},
      {"tool_choice", "tool_choice", "llm.tool_choice"},
      {"tools", "tools", "tools.file"},
      {"tool call id", "tool_calls[].id", "llm.server"},
      {"unrecognized request argument", "", "llm.extra_body (or llm.server)"},
      {"api key", "Authorization", "llm.api_key / llm.endpoints[].api_key"},
  };
  for (const Row& r : kRows) {
    if (!Contains(text, r.needle)) continue;
    ConfigHint h{std::string(r.field), std::string(r.key)};
    if (r.needle == "unrecognized request argument") {
      std::size_t colon = info.message.rfind(':');
      if (colon != std::string::npos) h.field = OneLine(info.message.substr(colon + 1), 64);
    }
    return h;
  }
  if (status == 401 || status == 403) return {"Authorization", "llm.api_key / llm.endpoints[].api_key"};
  if (status == 404) return {"model", "llm.model / llm.endpoints[].base_url"};
  if (!info.param.empty()) return {info.param, "llm.extra_body (or llm.server)"};
  return {};
}

Classification ClassifyTransport(http::TransportError error, std::string_view detail) {
  Classification c;
  c.message = "transport " + std::string(http::TransportErrorName(error));
  if (!detail.empty()) c.message += ": " + OneLine(detail);
  switch (error) {
    case http::TransportError::kCancelled: c.failure_class = FailureClass::kCancelled; break;
    case http::TransportError::kBadUrl: c.failure_class = FailureClass::kConfig; break;
    case http::TransportError::kAborted:
    case http::TransportError::kBodyTooLarge:
    case http::TransportError::kHeadersTooLarge:
    case http::TransportError::kBadResponse: c.failure_class = FailureClass::kTransientServer; break;
    default: c.failure_class = FailureClass::kTransientNetwork; break;
  }
  return c;
}

namespace {
// The number right after `marker` (case-insensitive search), if any.
std::optional<long long> NumberAfter(const std::string& lower, std::string_view marker) {
  std::size_t pos = lower.find(marker);
  if (pos == std::string::npos) return std::nullopt;
  pos += marker.size();
  std::size_t end = pos;
  while (end < lower.size() && std::isdigit(static_cast<unsigned char>(lower[end]))) ++end;
  if (end == pos || end - pos > 12) return std::nullopt;
  return std::stoll(lower.substr(pos, end - pos));
}

// The number right before `marker` ("52189 input tokens").
std::optional<long long> NumberBefore(const std::string& lower, std::string_view marker) {
  std::size_t pos = lower.find(marker);
  if (pos == std::string::npos) return std::nullopt;
  std::size_t start = pos;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(lower[start - 1]))) --start;
  if (start == pos || pos - start > 12) return std::nullopt;
  return std::stoll(lower.substr(start, pos - start));
}
}  // namespace

std::optional<long long> SuggestedMaxTokens(std::string_view message, long long margin) {
  std::string lower = AsciiLower(message);
  auto context = NumberAfter(lower, "maximum context length is ");
  if (!context) context = NumberAfter(lower, "maximum context length of ");
  auto input = NumberBefore(lower, " input tokens");
  if (!context || !input) return std::nullopt;
  long long room = *context - *input - margin;
  if (room <= 0) return std::nullopt;
  return room;
}

}  // namespace seragen::llm
