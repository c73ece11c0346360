#include "teacher/strict_validation.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

namespace seragen::teacher {
namespace {

using nlohmann::json;

// Text of a number as Python / the server would echo it.
std::string Show(const json& v) {
  if (v.is_number_float()) {
    std::string s = json(v.get<double>()).dump();
    if (s.find('.') == std::string::npos && s.find('e') == std::string::npos) s += ".0";
    return s;
  }
  return v.dump();
}

Rejection VllmError(const std::string& message, const json& param = nullptr) {
  return {400,
          json{{"error", {{"message", message}, {"type", "BadRequestError"}, {"param", param}, {"code", 400}}}}.dump(),
          message};
}

Rejection SglangError(const std::string& message) {
  return {
      400,
      json{{"object", "error"}, {"message", message}, {"type", "BadRequestError"}, {"param", nullptr}, {"code", 400}}
          .dump(),
      message};
}

Rejection LlamaError(int status, const std::string& message) {
  return {status,
          json{{"error",
                {{"code", status},
                 {"message", message},
                 {"type", status == 500 ? "server_error" : "invalid_request_error"}}}}
              .dump(),
          message};
}

Rejection OpenAIError(const std::string& message, const json& param, const json& code) {
  return {400,
          json{{"error", {{"message", message}, {"type", "invalid_request_error"}, {"param", param}, {"code", code}}}}
              .dump(),
          message};
}

bool IsReasoningModel(const std::string& id) {
  std::string l;
  for (char c : id) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l.rfind("gpt-5", 0) == 0) return true;
  return l.size() >= 2 && l[0] == 'o' && std::isdigit(static_cast<unsigned char>(l[1]));
}

// An integer JSON value within the signed 64-bit range.
bool InInt64(const json& v) {
  // Check unsigned first: is_number_integer() is true for unsigned values too.
  if (v.is_number_unsigned())
    return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return v.is_number_integer();
}

bool EmptyArray(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_array() && it->empty();
}

std::optional<Rejection> Vllm(const json& j) {
  if (auto s = j.find("seed"); s != j.end() && !s->is_null()) {
    if (!s->is_number() || !InInt64(*s)) {
      std::string msg =
          "1 validation error:\n  {'type': 'less_than_equal', 'loc': ('body', 'seed'), 'msg': "
          "'Input should be less than or equal to 9223372036854775807', 'input': " +
          s->dump() + "}";
      return VllmError(msg, "body.seed");
    }
  }
  if (auto t = j.find("temperature"); t != j.end() && t->is_number()) {
    double v = t->get<double>();
    if (v < 0) return VllmError("temperature must be non-negative, got " + Show(*t) + ".");
    if (v > 2) return VllmError("temperature must be in [0, 2], got " + Show(*t) + ".");
  }
  if (auto p = j.find("top_p"); p != j.end() && p->is_number()) {
    double v = p->get<double>();
    if (!(v > 0 && v <= 1)) return VllmError("top_p must be in (0, 1], got " + Show(*p) + ".");
  }
  for (const char* k : {"presence_penalty", "frequency_penalty"}) {
    if (auto p = j.find(k); p != j.end() && p->is_number() && std::fabs(p->get<double>()) > 2) {
      return VllmError(std::string(k) + " must be in [-2, 2], got " + Show(*p) + ".");
    }
  }
  for (const char* k : {"max_tokens", "max_completion_tokens"}) {
    if (auto m = j.find(k); m != j.end() && m->is_number_integer() && m->get<long long>() < 1) {
      return VllmError("max_tokens must be at least 1, got " + m->dump() + ".");
    }
  }
  if (j.contains("stream_options") && !j.value("stream", false)) {
    return VllmError("Stream options can only be defined when `stream=True`.");
  }
  if (EmptyArray(j, "tools")) {
    return VllmError(
        "`tools` must not be an empty array. Either provide at least one tool or omit the field entirely.");
  }
  if (j.contains("tool_choice") && !j["tool_choice"].is_null() && !j.contains("tools")) {
    std::string choice = j["tool_choice"].is_string() ? j["tool_choice"].get<std::string>() : "";
    if (choice != "none") return VllmError("When using `tool_choice`, `tools` must be set.");
  }
  return std::nullopt;
}

std::optional<Rejection> Sglang(const json& j) {
  if (!j.contains("messages") || !j["messages"].is_array() || j["messages"].empty()) {
    return SglangError("Messages cannot be empty.");
  }
  if (auto t = j.find("temperature"); t != j.end() && t->is_number()) {
    double v = t->get<double>();
    if (!(v >= 0) || !std::isfinite(v))
      return SglangError("temperature must be a non-negative finite number, got " + Show(*t) + ".");
  }
  if (auto p = j.find("top_p"); p != j.end() && p->is_number()) {
    double v = p->get<double>();
    if (!(v > 0 && v <= 1)) return SglangError("top_p must be in (0, 1], got " + Show(*p) + ".");
  }
  if (auto c = j.find("tool_choice");
      c != j.end() && c->is_string() && *c == "required" && (!j.contains("tools") || EmptyArray(j, "tools"))) {
    return SglangError("Tools cannot be empty if tool choice is set to required.");
  }
  return std::nullopt;
}

std::optional<Rejection> LlamaCpp(const json& j, const StrictOptions& o) {
  if (!o.jinja) {
    if (j.contains("tools") && !j["tools"].is_null()) return LlamaError(500, "tools param requires --jinja flag");
    if (j.contains("tool_choice") && !j["tool_choice"].is_null()) {
      return LlamaError(500, "tool_choice param requires --jinja flag");
    }
  }
  for (const char* k : {"max_tokens", "max_completion_tokens", "n_predict"}) {
    if (auto m = j.find(k); m != j.end()) {
      if (!m->is_number_integer() || m->get<long long>() < -1 || m->get<long long>() > 2147483647LL) {
        return LlamaError(400, std::string("Field '") + k +
                                   "': Value must be between -1 <= value <= 2147483647, but got " + m->dump());
      }
    }
  }
  if (auto c = j.find("tool_choice"); c != j.end() && c->is_string()) {
    std::string v = c->get<std::string>();
    if (v != "auto" && v != "none" && v != "required") return LlamaError(400, "Invalid tool_choice: " + v);
  }
  for (const auto& m : j.value("messages", json::array())) {
    if (!m.is_object()) continue;
    std::string role = m.value("role", "");
    bool has_content = m.contains("content") && !m["content"].is_null();
    bool has_calls = m.contains("tool_calls") && m["tool_calls"].is_array() && !m["tool_calls"].empty();
    if (role == "assistant" && !has_content && !has_calls) {
      return LlamaError(400, "Assistant message must contain either 'content' or 'tool_calls'!");
    }
    if (role != "assistant" && !m.contains("content")) {
      return LlamaError(400, "All non-assistant messages must contain 'content'");
    }
  }
  return std::nullopt;
}

// Request fields OpenAI's chat completions accept (others: "Unrecognized").
const std::set<std::string>& OpenAIFields() {
  static const std::set<std::string> fields = {"model",
                                               "messages",
                                               "tools",
                                               "tool_choice",
                                               "parallel_tool_calls",
                                               "temperature",
                                               "top_p",
                                               "n",
                                               "stream",
                                               "stream_options",
                                               "stop",
                                               "max_tokens",
                                               "max_completion_tokens",
                                               "presence_penalty",
                                               "frequency_penalty",
                                               "logit_bias",
                                               "logprobs",
                                               "top_logprobs",
                                               "user",
                                               "seed",
                                               "response_format",
                                               "reasoning_effort",
                                               "metadata",
                                               "store",
                                               "service_tier",
                                               "modalities",
                                               "audio",
                                               "prediction",
                                               "web_search_options",
                                               "verbosity",
                                               "prompt_cache_key",
                                               "safety_identifier",
                                               "functions",
                                               "function_call"};
  return fields;
}

std::optional<Rejection> OpenAI(const json& j, const StrictOptions& o) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!OpenAIFields().count(it.key())) {
      return OpenAIError("Unrecognized request argument supplied: " + it.key(), nullptr, nullptr);
    }
  }
  if (j.contains("max_tokens") && j.contains("max_completion_tokens")) {
    return OpenAIError("Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported.",
                       "max_tokens", "invalid_parameter_combination");
  }
  const bool reasoning = IsReasoningModel(o.model_id);
  if (reasoning) {
    if (j.contains("max_tokens")) {
      return OpenAIError(
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
          "'max_completion_tokens' instead.",
          "max_tokens", "unsupported_parameter");
    }
    if (auto t = j.find("temperature"); t != j.end() && t->is_number() && t->get<double>() != 1.0) {
      return OpenAIError("Unsupported value: 'temperature' does not support " + Show(*t) +
                             " with this model. Only the default (1) value is supported.",
                         "temperature", "unsupported_value");
    }
    for (const char* k : {"top_p", "parallel_tool_calls", "stop", "presence_penalty", "frequency_penalty"}) {
      if (j.contains(k)) {
        return OpenAIError(std::string("Unsupported parameter: '") + k + "' is not supported with this model.", k,
                           "unsupported_parameter");
      }
    }
  }
  if (j.contains("stream_options") && !j.value("stream", false)) {
    return OpenAIError("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options",
                       nullptr);
  }
  if (EmptyArray(j, "tools")) {
    return OpenAIError(
        "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array "
        "instead.",
        "tools", "empty_array");
  }
  if (auto s = j.find("seed"); s != j.end() && !s->is_null() && !InInt64(*s)) {
    return OpenAIError("Invalid 'seed': integer above maximum value. Expected a value <= 9223372036854775807.", "seed",
                       "integer_above_max_value");
  }
  if (auto t = j.find("temperature");
      t != j.end() && t->is_number() && (t->get<double>() < 0 || t->get<double>() > 2)) {
    return OpenAIError("Invalid 'temperature': decimal out of range. Expected a value between 0 and 2.", "temperature",
                       "decimal_out_of_range");
  }
  const auto& messages = j.value("messages", json::array());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    if (EmptyArray(m, "tool_calls")) {
      std::string field = "messages[" + std::to_string(i) + "].tool_calls";
      return OpenAIError("Invalid '" + field +
                             "': empty array. Expected an array with minimum length 1, but got an "
                             "empty array instead.",
                         field, "empty_array");
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view OwnedByFor(StrictMode mode) {
  if (mode == StrictMode::kOpenAI) return "system";
  if (mode == StrictMode::kOff) return "vllm";
  return StrictModeName(mode);  // vllm, sglang, llamacpp
}

std::string_view ServerHeaderFor(StrictMode mode) {
  return mode == StrictMode::kLlamaCpp ? "llama.cpp" : "seragen-teacher";
}

std::optional<Rejection> ValidateStrict(std::string_view body, const StrictOptions& options) {
  if (options.mode == StrictMode::kOff) return std::nullopt;
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;  // the ordinary parser answers these
  switch (options.mode) {
    case StrictMode::kVllm: return Vllm(j);
    case StrictMode::kSglang: return Sglang(j);
    case StrictMode::kLlamaCpp: return LlamaCpp(j, options);
    case StrictMode::kOpenAI: return OpenAI(j, options);
    case StrictMode::kOff: break;
  }
  return std::nullopt;
}

}  // namespace seragen::teacher
