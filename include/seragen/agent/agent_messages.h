// Model-visible messages of the agent loop itself (format errors), loaded
// from prompts/format_errors/*.md. Placeholders: {{detail}}, {{tool_names}},
// {{count}}, {{max_tokens}}, {{max_bytes}}.
#pragma once

#include <string>

#include "seragen/base/result.h"

namespace seragen::agent {

struct AgentMessages {
  std::string no_tool_call;
  std::string multiple_tool_calls;
  std::string tool_markup;
  std::string invalid_arguments;
  std::string truncated;
  std::string invalid_call;
  std::string answer_too_large;  // {{detail}}: the answer's size in bytes; {{max_bytes}}: the cap
  std::string empty_reply;       // stands in for a rejected reply that had no text and no calls

  // Reads every file from `dir` (e.g. DataDir()/prompts/format_errors);
  // NotFound naming the missing file otherwise.
  static Result<AgentMessages> Load(const std::string& dir);
};

}  // namespace seragen::agent
