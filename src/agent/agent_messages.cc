#include "seragen/agent/agent_messages.h"

#include "seragen/base/file_util.h"

namespace seragen::agent {

Result<AgentMessages> AgentMessages::Load(const std::string& dir) {
  AgentMessages m;
  struct Entry {
    const char* file;
    std::string* target;
  } entries[] = {
      {"no_tool_call.md", &m.no_tool_call}, {"multiple_tool_calls.md", &m.multiple_tool_calls},
      {"tool_markup.md", &m.tool_markup},   {"invalid_arguments.md", &m.invalid_arguments},
      {"truncated.md", &m.truncated},       {"invalid_call.md", &m.invalid_call},
      {"empty_reply.md", &m.empty_reply},   {"answer_too_large.md", &m.answer_too_large},
  };
  for (const Entry& e : entries) {
    std::string path = dir + "/" + e.file;
    Result<std::string> text = ReadFile(path);
    if (!text.ok()) return NotFoundError("format-error message missing: " + path);
    *e.target = std::move(*text);
    while (!e.target->empty() && e.target->back() == '\n') e.target->pop_back();
  }
  return m;
}

}  // namespace seragen::agent
