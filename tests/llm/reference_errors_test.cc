// Every error string we know each server to send for a rejected request
// (vLLM, SGLang, llama.cpp, OpenAI, OpenRouter; docs/SERVERS.md), in the
// envelope that server uses, mapped to
// the class it must get: configuration (stop, never retry), request size
// (context overflow / output budget), transient, or a per-call bad request.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "llm/error_classifier.h"

namespace seragen::llm {
namespace {

using nlohmann::json;

enum class Envelope { kVllmNested, kFlat, kLlamaCpp, kOpenAI, kOpenRouter };

std::string Body(Envelope e, int status, const std::string& message, const std::string& param = "",
                 const std::string& code = "") {
  json p = param.empty() ? json(nullptr) : json(param);
  switch (e) {
    case Envelope::kVllmNested:
      return json{{"error", {{"message", message}, {"type", "BadRequestError"}, {"param", p}, {"code", status}}}}
          .dump();
    case Envelope::kFlat:
      return json{
          {"object", "error"}, {"message", message}, {"type", "BadRequestError"}, {"param", p}, {"code", status}}
          .dump();
    case Envelope::kLlamaCpp:
      return json{{"error",
                   {{"code", status},
                    {"message", message},
                    {"type", status == 500 ? "server_error" : "invalid_request_error"}}}}
          .dump();
    case Envelope::kOpenAI:
      return json{{"error",
                   {{"message", message},
                    {"type", "invalid_request_error"},
                    {"param", p},
                    {"code", code.empty() ? json(nullptr) : json(code)}}}}
          .dump();
    case Envelope::kOpenRouter: return json{{"error", {{"code", status}, {"message", message}}}}.dump();
  }
  return {};
}

struct Row {
  Envelope envelope;
  int status;
  const char* message;
  const char* param;
  const char* code;
  FailureClass expected;
  const char* config_key;  // substring the hint must contain ("" = not checked)
};

constexpr auto V = Envelope::kVllmNested;
constexpr auto S = Envelope::kFlat;
constexpr auto L = Envelope::kLlamaCpp;
constexpr auto O = Envelope::kOpenAI;
constexpr auto R = Envelope::kOpenRouter;
constexpr auto kConfig = FailureClass::kConfig;
constexpr auto kOverflow = FailureClass::kContextOverflow;
constexpr auto kBudget = FailureClass::kOutputBudget;
constexpr auto kBad = FailureClass::kBadRequest;

const Row kRows[] = {
    // vLLM
    {V, 400,
     "1 validation error:\n  {'type': 'less_than_equal', 'loc': ('body', 'seed'), 'msg': 'Input should be less than or "
     "equal to 9223372036854775807', 'input': 13390331474070314677}",
     "body.seed", "", kConfig, "llm.send_seed"},
    {V, 400, "presence_penalty must be in [-2, 2], got 3.0.", "", "", kConfig, ""},
    {V, 400, "frequency_penalty must be in [-2, 2], got 3.0.", "", "", kConfig, ""},
    {V, 400, "repetition_penalty must be greater than zero, got 0.0.", "", "", kConfig, ""},
    {V, 400, "temperature must be non-negative, got -1.0.", "", "", kConfig, "llm.sampling_fields"},
    {V, 400, "temperature must be in [0, 2], got 2.5.", "", "", kConfig, "llm.sampling_fields"},
    {V, 400, "top_p must be in (0, 1], got 0.0.", "", "", kConfig, "llm.sampling_fields"},
    {V, 400, "top_k must be 0 (disable), or at least 1, got -2.", "", "", kConfig, ""},
    {V, 400, "min_p must be in [0, 1], got 2.0.", "", "", kConfig, ""},
    {V, 400, "max_tokens must be at least 1, got 0.", "", "", kConfig, "llm.max_tokens_field"},
    {V, 400, "min_tokens must be less than or equal to max_tokens=10, got 20.", "", "", kConfig, ""},
    {V, 400, "stop cannot contain an empty string.", "", "", kConfig, ""},
    {V, 400, "n must be 1 when using greedy sampling, got 2.", "", "", kConfig, ""},
    {V, 400, "when using `top_logprobs`, `logprobs` must be set to true.", "", "", kConfig, ""},
    {V, 400, "`top_logprobs` must be a positive value or -1.", "", "", kConfig, ""},
    {V, 400, "Requested sample logprobs of 30, which is greater than max allowed: 20", "", "", kConfig, ""},
    {V, 400,
     "You passed 9000 input tokens and requested 1000 output tokens. However, the model's context length is only 8192 "
     "tokens, resulting in a maximum input length of 7192 tokens. Please reduce the length of the input prompt.",
     "input_tokens", "", kOverflow, ""},
    {V, 400,
     "max_completion_tokens=70000cannot be greater than max_model_len=max_total_tokens=65536. Please request fewer "
     "output tokens.",
     "", "", kBudget, ""},
    {V, 400, "Input length (70000) exceeds model's maximum context length (65536).", "", "", kOverflow, ""},
    {V, 400,
     "This model's maximum context length is 2048 tokens. However, you requested 2723 tokens (1699 in the messages, "
     "1024 in the completion).",
     "", "", kOverflow, ""},
    {V, 400, "Stream options can only be defined when `stream=True`.", "", "", kConfig, "llm.stream"},
    {V, 400, "`tools` must not be an empty array. Either provide at least one tool or omit the field entirely.", "", "",
     kConfig, ""},
    {V, 400, "When using `tool_choice`, `tools` must be set.", "", "", kConfig, "llm.tool_choice"},
    {V, 400,
     "Invalid value for `tool_choice`: sometimes! Only named tools, \"none\", \"auto\" or \"required\" are supported.",
     "", "", kConfig, "llm.tool_choice"},
    {V, 400, "The tool specified in `tool_choice` does not match any of the specified `tools`", "", "", kConfig, ""},
    {V, 400, "Harmony does not support reasoning_effort='none'", "", "", kConfig, "llm.extra_body"},
    {V, 400,
     "Chat template is passed with request, but --trust-request-chat-template is not set. Refused request with "
     "untrusted chat template.",
     "", "", kConfig, "llm.extra_body"},
    {V, 400, "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set", "", "",
     kConfig, "--tool-call-parser"},
    {V, 400, "tool_choice=\"required\" requires --tool-call-parser to be set", "", "", kConfig, "--tool-call-parser"},
    {V, 400, "Tool call id was 0540141_3 but must be a-z, A-Z, 0-9, with a length of 9.", "", "", kConfig,
     "llm.server"},
    {V, 404, "The model `glm-9` does not exist.", "", "", kConfig, "llm.model"},
    {V, 422, "Unprocessable entity", "", "", kConfig, ""},
    {V, 400, "chat completions only support assistant tool_calls of type 'function'.", "", "", kBad, ""},
    {S, 400, "This model's maximum context length is 2048 tokens. However, you requested 2723 tokens", "", "",
     kOverflow, ""},
    // SGLang, flat envelope
    {S, 400, "Messages cannot be empty.", "", "", kBad, ""},
    {S, 400, "Tools cannot be empty if tool choice is set to required.", "", "", kConfig, ""},
    {S, 400, "Tools cannot be empty if tool choice is set to a specific tool.", "", "", kConfig, ""},
    {S, 400, "Tool 'grep' not found in tools list.", "", "", kConfig, ""},
    {S, 400, "Tool 0 function has invalid 'parameters' schema: bad", "", "", kConfig, ""},
    {S, 400, "max_completion_tokens is too large: 70000.This model supports at most 65536 completion tokens.", "", "",
     kBudget, ""},
    {S, 400, "schema_ is required for json_schema response format request.", "", "", kConfig, ""},
    {S, 400, "temperature must be a non-negative finite number, got -1.", "", "", kConfig, "llm.sampling_fields"},
    {S, 400, "top_p must be in (0, 1], got 0.", "", "", kConfig, "llm.sampling_fields"},
    {S, 400, "min_p must be in [0, 1], got 2.", "", "", kConfig, ""},
    {S, 400, "top_k must be -1 (disable) or at least 1, got 0.", "", "", kConfig, ""},
    {S, 400, "frequency_penalty must be in [-2, 2], got 3.", "", "", kConfig, ""},
    {S, 400, "repetition_penalty must be in (0, 2] (1.0 = no penalty), got 3.", "", "", kConfig, ""},
    {S, 400, "max_new_tokens must be at least 0, got -1.", "", "", kConfig, ""},
    {S, 400, "logit_bias must has keys in [0, 151935], got 999999.", "", "", kConfig, ""},
    {S, 400, "reasoning_effort must not be a boolean", "", "", kConfig, "llm.extra_body"},
    {S, 400, "The input (43028 tokens) is longer than the model's context length (40960 tokens).", "", "", kOverflow,
     ""},
    {S, 400,
     "Requested token count exceeds the model's maximum context length of 4096 tokens. You requested a total of 4320 "
     "tokens",
     "", "", kOverflow, ""},
    {S, 500, "Internal server error: something broke", "", "", FailureClass::kTransientServer, ""},
    // llama.cpp
    {L, 500, "tools param requires --jinja flag", "", "", kConfig, "--jinja"},
    {L, 500, "tool_choice param requires --jinja flag", "", "", kConfig, "--jinja"},
    {L, 500, "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj", "", "",
     kConfig, ""},
    {L, 500, "Cannot use both json_schema and grammar", "", "", FailureClass::kTransientServer, ""},
    {L, 400, "Cannot use both json_schema and grammar", "", "", kConfig, ""},
    {L, 400, "response_format type must be one of \"text\" or \"json_object\", but got: xml", "", "", kConfig, ""},
    {L, 400, "'messages' is required", "", "", kBad, ""},
    {L, 400, "All non-assistant messages must contain 'content'", "", "", kBad, ""},
    {L, 400, "Assistant message must contain either 'content' or 'tool_calls'!", "", "", kBad, ""},
    {L, 400, "Cannot use custom grammar constraints with tools.", "", "", kConfig, ""},
    {L, 400, "invalid type for \"enable_thinking\" (expected boolean, got string)", "", "", kConfig, ""},
    {L, 400, "logprobs is not supported with tools + stream", "", "", kConfig, ""},
    {L, 400, "top_logprobs requires logprobs to be set to true", "", "", kConfig, ""},
    {L, 400, "Field 'max_tokens': Value must be between -1 <= value <= 2147483647, but got 99999999999", "", "",
     kConfig, "llm.max_tokens_field"},
    {L, 400, "Field 'n': Value must be between 1 <= value <= 4, but got 8", "", "", kConfig, ""},
    {L, 400, "Invalid tool_choice: sometimes", "", "", kConfig, "llm.tool_choice"},
    {L, 400, "Only one completion choice is allowed", "", "", kConfig, ""},
    {L, 400, "request (13392 tokens) exceeds the available context size (8192 tokens), try increasing it", "", "",
     kOverflow, ""},
    {L, 400, "the request exceeds the available context size, try increasing it", "", "", kOverflow, ""},
    {L, 503, "Loading model", "", "", FailureClass::kServerNotReady, ""},
    {L, 401, "Invalid API Key", "", "", kConfig, "llm.api_key"},
    // OpenAI
    {O, 400,
     "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
     "max_tokens", "unsupported_parameter", kConfig, "llm.max_tokens_field"},
    {O, 400,
     "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
     "temperature", "unsupported_value", kConfig, "llm.sampling_fields"},
    {O, 400, "Unsupported parameter: 'top_p' is not supported with this model.", "top_p", "unsupported_parameter",
     kConfig, "llm.sampling_fields"},
    {O, 400, "Unsupported parameter: 'parallel_tool_calls' is not supported with this model.", "parallel_tool_calls",
     "unsupported_parameter", kConfig, "llm.parallel_tool_calls"},
    {O, 400, "Unsupported parameter: 'stop' is not supported with this model.", "stop", "unsupported_parameter",
     kConfig, ""},
    {O, 400,
     "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model. Supported values are: 'none', 'low', "
     "'medium', and 'high'.",
     "reasoning_effort", "unsupported_value", kConfig, "llm.extra_body"},
    {O, 400, "Function tools with reasoning_effort are not supported for gpt-5.6-luna in /v1/chat/completions.",
     "reasoning_effort", "", kConfig, "llm.extra_body"},
    {O, 400, "Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported.", "max_tokens",
     "invalid_parameter_combination", kConfig, "llm.max_tokens_field"},
    {O, 400, "The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options", "", kConfig,
     "llm.stream"},
    {O, 400, "Unrecognized request argument supplied: top_k", "", "", kConfig, "llm.extra_body"},
    {O, 400, "Unrecognized request argument supplied: enable_thinking", "", "", kConfig, "llm.extra_body"},
    {O, 400, "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
     "tools", "empty_array", kConfig, ""},
    {O, 400,
     "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 200 "
     "instead.",
     "tools", "array_above_max_length", kConfig, "tools.file"},
    {O, 400,
     "Invalid 'messages[2].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array "
     "instead.",
     "messages[2].tool_calls", "empty_array", kConfig, ""},
    {O, 400,
     "Invalid 'messages[3].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got a "
     "string with length 64 instead.",
     "messages[3].tool_calls[0].id", "string_above_max_length", kBad, ""},
    {O, 400,
     "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
     "messages.[3].role", "", kBad, ""},
    {O, 400,
     "This model's maximum context length is 16385 tokens. However, your messages resulted in 16468 tokens. Please "
     "reduce the length of the messages.",
     "messages", "context_length_exceeded", kOverflow, ""},
    {O, 429,
     "Request too large for gpt-4o in organization org-XXXX on tokens per min (TPM): Limit 30000, Requested 36278.", "",
     "rate_limit_exceeded", kOverflow, ""},
    {O, 429, "You exceeded your current quota, please check your plan and billing details.", "", "insufficient_quota",
     FailureClass::kQuota, ""},
    {O, 429,
     "Rate limit reached for gpt-4 in organization org-XXXX on tokens per min (TPM): Limit 10000, Used 9348, Requested "
     "5086. Please try again in 26.604s.",
     "", "rate_limit_exceeded", FailureClass::kRateLimited, ""},
    {O, 401, "Incorrect API key provided: sk-***.", "", "invalid_api_key", kConfig, "llm.api_key"},
    // OpenRouter
    {R, 400, "This endpoint's maximum context length is 32768 tokens. However, you requested about 50000 tokens", "",
     "", kOverflow, ""},
    {R, 401, "No auth credentials found", "", "", kConfig, "llm.api_key"},
    {R, 402, "This request requires more credits, or fewer max_tokens.", "", "", FailureClass::kQuota, ""},
    {R, 403, "Input was flagged by moderation", "", "", kConfig, ""},
    {R, 408, "Timed out", "", "", FailureClass::kTransientServer, ""},
    {R, 429, "Rate limit exceeded", "", "", FailureClass::kRateLimited, ""},
    {R, 502, "Model is down or returned an invalid response", "", "", FailureClass::kTransientServer, ""},
    {R, 503, "No available provider meets your routing requirements", "", "", FailureClass::kTransientServer, ""},
    // Transient
    {V, 504, "Gateway timeout", "", "", FailureClass::kTransientServer, ""},
    {V, 500, "EngineCore encountered an issue.", "", "", FailureClass::kTransientServer, ""},
};

}  // namespace

TEST_CASE("every error string of the validation reference gets its class", "[llm][classify][reference]") {
  for (const Row& row : kRows) {
    std::string body = Body(row.envelope, row.status, row.message, row.param, row.code);
    Classification c = ClassifyHttpError(row.status, body);
    INFO(row.status << " " << row.message << "\n-> " << FailureClassName(c.failure_class) << ": " << c.message);
    CHECK(c.failure_class == row.expected);
    CHECK(c.message.find('\n') == std::string::npos);
    if (row.expected == FailureClass::kConfig) {
      // The class must never be retried, and the message says what to change.
      CHECK_FALSE(IsRetryable(c.failure_class));
      if (*row.config_key) CHECK(c.message.find(row.config_key) != std::string::npos);
    }
  }
}

TEST_CASE("configuration hints name the request field", "[llm][classify][reference]") {
  ErrorEnvelope info;
  info.message =
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
  ConfigHint h = HintForConfigError(400, info);
  CHECK(h.field == "max_tokens");
  CHECK(h.config_key.find("llm.max_tokens_field") == 0);
  info.message = "tools param requires --jinja flag";
  h = HintForConfigError(500, info);
  CHECK(h.field == "tools");
  CHECK(h.config_key.find("--jinja") != std::string::npos);
  info.message = "Unrecognized request argument supplied: top_k";
  CHECK(HintForConfigError(400, info).field == "top_k");
}

}  // namespace seragen::llm
