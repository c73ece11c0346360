#include "export/sharegpt_record.h"

#include "export/record_json.h"
#include "seragen/verify/sera_lines.h"

namespace seragen::exporter::internal {
namespace {

using nlohmann::ordered_json;

// The words LLaMA-Factory's function formatter searches a function_call
// value for (its templates' default thought and tool-call words): one inside
// the reasoning or the call makes it cut or parse the wrong span.
constexpr std::string_view kFormatterWords[] = {"<think>", "</think>", "<tool_call>", "</tool_call>"};

bool HoldsFormatterWord(std::string_view text) {
  for (std::string_view w : kFormatterWords) {
    if (text.find(w) != std::string_view::npos) return true;
  }
  return false;
}

// The think block's text: the reasoning, else the visible text, each
// stripped as Python's str.strip(); empty with think: drop.
std::string_view Thought(const llm::Message& m, ThinkMode think) {
  if (think == ThinkMode::kDrop) return {};
  std::string_view thought = verify::PythonStrip(m.reasoning);
  return thought.empty() ? verify::PythonStrip(m.content) : thought;
}

// The value of a function_call turn: the think block (none when its text is
// empty), then the call as template JSON. An error when either holds one of
// the formatter's words (SharegptMarkupConflict).
Result<std::string> FunctionCallValue(const llm::Message& m, ThinkMode think) {
  SG_ASSIGN_OR_RETURN(std::string call, CallJson(m.tool_calls.front()));
  std::string_view thought = Thought(m, think);
  if (HoldsFormatterWord(thought) || HoldsFormatterWord(call)) {
    return FailedPreconditionError("a function_call value would hold <think> or <tool_call> markup of its own");
  }
  if (thought.empty()) return call;
  return "<think>\n" + std::string(thought) + "\n</think>\n\n" + call;
}

// The `tools` column: the tool list as one JSON string, each tool as
// {"name", "description", "parameters"} (the form LLaMA-Factory documents).
Result<std::string> ToolsString(const std::vector<llm::ToolSpec>& tools) {
  ordered_json arr = ordered_json::array();
  for (const llm::ToolSpec& t : tools) {
    SG_ASSIGN_OR_RETURN(ordered_json params, ParseObject(t.parameters_json, "parameters of tool '" + t.name + "'"));
    arr.push_back({{"name", t.name}, {"description", t.description}, {"parameters", std::move(params)}});
  }
  return TemplateJson(arr);
}

}  // namespace

Result<ordered_json> SharegptRecord(const std::vector<llm::Message>& history, const std::vector<llm::ToolSpec>& tools,
                                    ThinkMode think) {
  ordered_json turns = ordered_json::array();
  std::string system;
  for (const llm::Message& m : history) {
    switch (m.role) {
      case llm::Role::kSystem: system = m.content; break;
      case llm::Role::kUser: turns.push_back({{"from", "human"}, {"value", m.content}}); break;
      case llm::Role::kTool: turns.push_back({{"from", "observation"}, {"value", m.content}}); break;
      case llm::Role::kAssistant: {
        SG_ASSIGN_OR_RETURN(std::string value, FunctionCallValue(m, think));
        turns.push_back({{"from", "function_call"}, {"value", std::move(value)}});
        break;
      }
    }
  }
  SG_ASSIGN_OR_RETURN(std::string tools_text, ToolsString(tools));
  return ordered_json{{"conversations", std::move(turns)}, {"system", system}, {"tools", tools_text}};
}

}  // namespace seragen::exporter::internal

namespace seragen::exporter {

bool SharegptMarkupConflict(const agent::Trajectory& t, ThinkMode think) {
  for (const llm::Message& m : t.history) {
    if (m.role != llm::Role::kAssistant || m.tool_calls.empty()) continue;
    Result<std::string> call = internal::CallJson(m.tool_calls.front());
    if (internal::HoldsFormatterWord(internal::Thought(m, think)) || (call.ok() && internal::HoldsFormatterWord(*call)))
      return true;
  }
  return false;
}

}  // namespace seragen::exporter
