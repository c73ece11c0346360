#include "seragen/llm/error_classifier.h"

#include <algorithm>
#include <cctype>

#include "llm/json_util.h"

namespace seragen::llm {

using internal::Json;
using internal::StringOr;

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

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

void ReadEnvelope(const Json& e, ErrorInfo& info) {
  info.message = StringOr(e, "message");
  info.type = StringOr(e, "type");
  if (auto it = e.find("code"); it != e.end()) info.code = CodeText(*it);
}

std::string Describe(const ErrorInfo& info) {
  std::string out = info.message;
  if (!info.type.empty()) out += " (type=" + info.type;
  if (!info.code.empty()) out += (info.type.empty() ? " (" : ", ") + std::string("code=") + info.code;
  if (!info.type.empty() || !info.code.empty()) out += ")";
  return OneLine(out);
}

bool LooksLikeQuota(const ErrorInfo& info, const std::string& text) {
  if (Contains(text, "insufficient_quota") || Contains(text, "exceeded your current quota")) return true;
  if (Contains(text, "requires more credits") || Contains(text, "insufficient credits")) return true;
  // Together labels plain rate limits "credit_limit": only call it quota
  // when the wording is not about a rate.
  if (Lower(info.type) == "credit_limit" && !Contains(text, "rate limit")) return true;
  return false;
}

}  // namespace

bool LooksLikeOutputBudget(std::string_view text) {
  std::string t = Lower(text);
  if (Contains(t, "'max_tokens' or 'max_completion_tokens' is too large")) return true;
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
      "requested token count exceeds",
      "prompt is too long",
      "request too large",
  };
  std::string t = Lower(text);
  return std::any_of(std::begin(kMatchers), std::end(kMatchers),
                     [&](std::string_view m) { return Contains(t, m); });
}

ErrorInfo ParseErrorBody(std::string_view body) {
  ErrorInfo info;
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

Classification ClassifyInBandError(const ErrorInfo& info) {
  std::string text = Lower(info.message + " " + info.type + " " + info.code);
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
  ErrorInfo info = ParseErrorBody(body);
  std::string text = Lower(info.message + " " + info.type + " " + info.code);
  Classification c;
  c.message = "HTTP " + std::to_string(status) + ": " + Describe(info);
  auto set = [&](FailureClass k) {
    c.failure_class = k;
    return c;
  };
  if (LooksLikeOutputBudget(text)) return set(FailureClass::kOutputBudget);
  if (LooksLikeContextOverflow(text) || status == 413) return set(FailureClass::kContextOverflow);
  if (status == 402 || LooksLikeQuota(info, text)) return set(FailureClass::kQuota);
  if (status == 401 || status == 403) {
    c.message += " (check the API key and its environment variable)";
    return set(FailureClass::kConfig);
  }
  if (status == 404) {
    c.message += " (check the base URL and the model name against /v1/models)";
    return set(FailureClass::kConfig);
  }
  if (Contains(text, "tool choice requires") || Contains(text, "enable-auto-tool-choice") ||
      Contains(text, "tool-call-parser")) {
    c.message += " (start the server with tool calling enabled)";
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

Classification ClassifyTransport(http::TransportError error, std::string_view detail) {
  Classification c;
  c.message = "transport " + std::string(http::TransportErrorName(error));
  if (!detail.empty()) c.message += ": " + OneLine(detail);
  switch (error) {
    case http::TransportError::kCancelled: c.failure_class = FailureClass::kCancelled; break;
    case http::TransportError::kBadUrl: c.failure_class = FailureClass::kConfig; break;
    case http::TransportError::kAborted: c.failure_class = FailureClass::kTransientServer; break;
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
  std::string lower = Lower(message);
  auto context = NumberAfter(lower, "maximum context length is ");
  if (!context) context = NumberAfter(lower, "maximum context length of ");
  auto input = NumberBefore(lower, " input tokens");
  if (!context || !input) return std::nullopt;
  long long room = *context - *input - margin;
  if (room <= 0) return std::nullopt;
  return room;
}

}  // namespace seragen::llm
