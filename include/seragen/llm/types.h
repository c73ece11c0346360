// Typed chat-completions data shared by the LLM client and its users.
// No JSON library types here: tool schemas and arguments travel as JSON text.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seragen::llm {

enum class Role { kSystem, kUser, kAssistant, kTool };
std::string_view RoleName(Role role);

struct ToolCall {
  std::string id;
  std::string name;
  std::string arguments_raw;     // exactly as the server sent it (trajectories keep this)
  bool arguments_valid = false;  // arguments_raw is one JSON object
  std::string arguments_json;    // the parsed object as compact JSON ("{}" when invalid)
  std::string arguments_error;   // why arguments_raw is not a valid object (empty when valid)
};

// Where ChatResponse::reasoning came from.
enum class ReasoningSource {
  kNone,
  kReasoningField,         // message.reasoning (vLLM >= #27752, OpenRouter)
  kReasoningContentField,  // message.reasoning_content (SGLang, llama.cpp, DeepSeek)
  kThinkTag,               // a leading <think>...</think> block in content
};
std::string_view ReasoningSourceName(ReasoningSource source);

struct Message {
  Role role = Role::kUser;
  std::string content;
  std::string reasoning;             // assistant only; sent back per WireOptions
  std::vector<ToolCall> tool_calls;  // assistant only
  std::string tool_call_id;          // tool messages
  std::string name;                  // optional participant / tool name
};

struct ToolSpec {
  std::string name;
  std::string description;
  std::string parameters_json = R"({"type":"object","properties":{}})";  // JSON Schema
};

struct ToolChoice {
  enum class Mode { kUnset, kAuto, kNone, kRequired, kNamed };
  Mode mode = Mode::kUnset;  // kUnset: field not sent
  std::string name;          // for kNamed
};

struct SamplingParams {
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<double> presence_penalty;
  std::optional<double> frequency_penalty;
};

struct ChatRequest {
  std::string model;
  std::vector<Message> messages;
  std::vector<ToolSpec> tools;
  ToolChoice tool_choice;
  std::optional<bool> parallel_tool_calls;
  SamplingParams sampling;
  std::optional<std::int64_t> max_tokens;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> stop;
  // A JSON object whose members are copied into the request body as-is
  // (server-specific fields: top_k, chat_template_kwargs, ...). They override
  // fields of the same name. Empty = none.
  std::string extra_body_json;
};

struct Usage {
  bool present = false;  // the server sent a usage object
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t total_tokens = 0;
  std::optional<std::int64_t> cached_prompt_tokens;  // unknown (absent/null) != 0
  std::optional<std::int64_t> reasoning_tokens;
};

struct CallTimings {
  std::chrono::microseconds total{0};  // Complete() to done, including retries
  std::chrono::microseconds last_attempt{0};
  std::chrono::microseconds first_byte{0};  // of the last attempt
  std::chrono::microseconds backoff{0};     // time spent waiting between attempts
  int attempts = 0;
};

// Problems with the tool calls of an otherwise successful response.
enum class ToolIssue {
  kNone,
  kToolFormat,  // no parsed calls, but tool markup in content/reasoning (server parser failed)
  kToolArgs,    // a call's arguments are not a JSON object, or break the tool's schema
  kTooLarge,    // the answer passed the caller's size cap and was cut (detail: its size in bytes)
};
std::string_view ToolIssueName(ToolIssue issue);

struct ChatResponse {
  std::string id;
  std::string model;
  std::string content;  // "" when the server sent null
  bool content_was_null = false;
  std::string reasoning;
  ReasoningSource reasoning_source = ReasoningSource::kNone;
  std::vector<ToolCall> tool_calls;
  std::string finish_reason;  // as sent: stop, length, tool_calls, content_filter, ...
  Usage usage;
  CallTimings timings;
  std::string endpoint;  // the endpoint that answered, named as base/endpoint_name.h names it (no credentials)
  std::string raw_body;  // JSON body, or the SSE text of a stream, as received
  ToolIssue tool_issue = ToolIssue::kNone;
  std::string tool_issue_detail;
};

}  // namespace seragen::llm
