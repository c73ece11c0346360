// Shared by the agent tests: the three tools' specs and the format-error
// messages.
#pragma once

#include <vector>

#include "seragen/agent/agent_messages.h"
#include "seragen/llm/types.h"

namespace seragen::agent {

// bash, editor and submit, each taking any object.
inline std::vector<llm::ToolSpec> TestToolSpecs() {
  return {{"bash", "run a command", R"({"type":"object"})"},
          {"editor", "edit files", R"({"type":"object"})"},
          {"submit", "submit", R"({"type":"object"})"}};
}

// Short markers, with every placeholder the real messages use, so a test can
// see which one was sent.

inline AgentMessages TestMessages() {
  return {.no_tool_call = "NO_TOOL {{tool_names}}",
          .multiple_tool_calls = "MULTI {{count}}",
          .tool_markup = "MARKUP {{detail}}",
          .invalid_arguments = "BADJSON {{detail}}",
          .truncated = "TRUNCATED {{max_tokens}}",
          .invalid_call = "INVALID {{detail}}",
          .answer_too_large = "TOO_LARGE {{detail}} > {{max_bytes}}",
          .empty_reply = "EMPTY"};
}

}  // namespace seragen::agent
