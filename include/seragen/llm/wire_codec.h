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
  bool stream = false;
  bool stream_include_usage = true;  // stream_options.include_usage
};

// Parses a name: reasoning, reasoning_content, both, think_tag, omit.
Result<WireOptions::ReasoningField> ParseReasoningField(std::string_view name);

// Encodes the request body. History hygiene: assistant tool-call arguments
// are always sent as a JSON object (invalid raw text becomes "{}").
// Errors (kInvalidArgument) name the bad field: a tool's parameters or
// extra_body_json that is not a JSON object.
Result<std::string> EncodeChatRequest(const ChatRequest& request, const WireOptions& options);

// Decodes a 2xx non-streaming body into a response (reasoning extracted,
// tool-call arguments parsed, tool issues detected). A body with a top-level
// "error" object is returned as a failure classified from that object.
// Malformed bodies are kTransientServer failures.
Result<ChatResponse> DecodeChatResponse(std::string_view body);

// Parses arguments_raw into arguments_valid / arguments_json / arguments_error.
// Several glued objects ("{..}{..}") are reported as invalid, naming the count.
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
