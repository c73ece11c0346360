// OpenAI chat-completions wire format: request encoding and response
// decoding (pure functions; nlohmann_json is used only in the .cc).
#pragma once

#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/llm/types.h"

namespace seragen::llm {

struct WireOptions {
  // How assistant reasoning is sent back in history.
  enum class ReasoningField { kReasoning, kReasoningContent, kBoth, kThinkTagInContent, kOmit };
  ReasoningField reasoning_field = ReasoningField::kReasoning;
  // Which name carries ChatRequest::max_tokens (never both: OpenAI rejects
  // the pair, and its reasoning models reject max_tokens).
  enum class MaxTokensField { kMaxTokens, kMaxCompletionTokens };
  MaxTokensField max_tokens_field = MaxTokensField::kMaxTokens;
  // false: temperature, top_p and the penalties are not sent (servers that
  // only take their defaults, e.g. OpenAI reasoning models).
  bool send_sampling = true;
  // parallel_tool_calls: as the request says, never, or forced. Only sent
  // with a non-empty tool list.
  enum class ParallelToolCalls { kAsRequested, kOmit, kFalse, kTrue };
  ParallelToolCalls parallel_tool_calls = ParallelToolCalls::kAsRequested;
  bool stream = false;
  bool stream_include_usage = true;  // stream_options.include_usage
};

// Parses a name: reasoning, reasoning_content, both, think_tag, omit.
Result<WireOptions::ReasoningField> ParseReasoningField(std::string_view name);

// Names for config values and reports: max_tokens | max_completion_tokens;
// as_requested | omit | false | true.
std::string_view MaxTokensFieldName(WireOptions::MaxTokensField field);
Result<WireOptions::MaxTokensField> ParseMaxTokensField(std::string_view name);
std::string_view ParallelToolCallsName(WireOptions::ParallelToolCalls mode);
Result<WireOptions::ParallelToolCalls> ParseParallelToolCalls(std::string_view name);
std::string_view ReasoningFieldName(WireOptions::ReasoningField field);

// Encodes the request body. Valid by construction for every server profile:
// no empty `tools`, no tool_choice/parallel_tool_calls without tools, no
// empty `tool_calls` in history, `stream_options` only with `stream`, one
// max-tokens field, and a seed within 0..kMaxPortableSeed. History hygiene:
// assistant tool-call arguments are always sent as a JSON object (invalid
// raw text becomes "{}"). Errors (kInvalidArgument) name the bad field: a
// tool's parameters or extra_body_json that is not a JSON object, or a seed
// out of range.
Result<std::string> EncodeChatRequest(const ChatRequest& request, const WireOptions& options);

// Decodes a 2xx non-streaming body into a response (reasoning extracted,
// tool-call arguments parsed, tool issues detected). A body with a top-level
// "error" object is returned as a failure classified from that object.
// Malformed bodies are kTransientServer failures.
Result<ChatResponse> DecodeChatResponse(std::string_view body);

// Parses arguments_raw into arguments_valid / arguments_json / arguments_error.
// Several glued objects ("{..}{..}") are reported as invalid, naming the count.
// arguments_json keeps the model's key order; a key written twice keeps its
// first place and its last value (as Python's json.loads reads it).
void ParseToolCallArguments(ToolCall& call);

// Splits "{...}{...}" into its top-level JSON objects (for optional recovery).
// Returns an empty vector when the text is not a sequence of >= 2 objects.
std::vector<std::string> SplitGluedJsonObjects(std::string_view text);

// Moves a leading <think>...</think> block (or text before a lone </think>)
// out of content into reasoning when reasoning is empty; records the source.
void ExtractThinkTag(ChatResponse& response);

// Sets tool_issue/tool_issue_detail: kToolFormat when there are no tool calls
// but content or reasoning holds tool markup (<tool_call>, <function=,
// <arg_key>, [TOOL_CALLS]) or finish_reason is "tool_calls"; kToolArgs when a
// call's arguments are invalid.
void DetectToolIssue(ChatResponse& response);

// Shared final step of decoding (stream or not): reasoning extraction,
// argument parsing, tool-issue detection.
void FinalizeResponse(ChatResponse& response);

}  // namespace seragen::llm
