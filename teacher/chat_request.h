// Typed view of an OpenAI chat-completions request, as far as the scripted
// teacher needs it. Parsed once at the HTTP edge; nothing else sees raw JSON.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::teacher {

struct ToolCallIn {
  std::string id;
  std::string name;
  std::string arguments;  // raw JSON text as sent
};

struct MessageIn {
  std::string role;     // system | user | assistant | tool | developer
  std::string content;  // text parts joined; "" when null
  std::vector<ToolCallIn> tool_calls;
  std::string tool_call_id;
};

struct ToolSpecIn {
  std::string name;
  std::vector<std::string> parameters;       // property names
  std::vector<std::string> command_choices;  // enum of a "command" property, if any
  std::string schema;                        // the whole "function" object as sent (compact JSON)
};

struct ChatRequest {
  std::string model;
  std::vector<MessageIn> messages;
  std::vector<ToolSpecIn> tools;
  bool stream = false;
  bool include_usage = false;
  // Bytes of all message text and tool-call arguments, for token estimates.
  std::size_t text_bytes = 0;
};

// Fails with kParseError (bad JSON) or kInvalidArgument (wrong shape, naming
// the field, e.g. "messages[2].role: missing").
Result<ChatRequest> ParseChatRequest(std::string_view body);

// Estimated tokens for `bytes` of text (about four bytes per token, at least 1).
int EstimateTokens(std::size_t bytes);

}  // namespace seragen::teacher
