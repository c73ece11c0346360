#include <nlohmann/json.hpp>

#include "seragen/base/file_util.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/template.h"
#include "seragen/export/record.h"

namespace seragen::exporter {
namespace {

using nlohmann::ordered_json;

// JSON text stored in a trajectory (tool schemas, call arguments) as a value.
// Total: text that is too deep or not JSON is kept as a JSON string.
ordered_json ParseStored(const std::string& text) {
  if (CheckJsonDepth(text, "stored JSON", kMaxJsonDepth).ok()) {
    ordered_json j = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded()) return j;
  }
  return ordered_json(text);
}

// Compact dump that never throws on invalid UTF-8 (replaces bad bytes).
std::string Dump(const ordered_json& j) { return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace); }

std::string TrimTrailingNewline(std::string s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

ordered_json ToolsJson(const std::vector<llm::ToolSpec>& tools) {
  ordered_json arr = ordered_json::array();
  for (const auto& t : tools) {
    arr.push_back({{"type", "function"},
                   {"function",
                    {{"name", t.name},
                     {"description", t.description},
                     {"parameters", ParseStored(t.parameters_json)}}}});
  }
  return arr;
}

// The assistant's visible text with reasoning handled per ThinkMode.
std::string AssistantText(const llm::Message& m, ThinkMode think) {
  std::string content = m.content;
  if (think == ThinkMode::kWrap && !m.reasoning.empty()) {
    content = "<think>\n" + m.reasoning + "\n</think>\n" + content;
  }
  return content;
}

std::string HermesCall(const llm::ToolCall& c) {
  ordered_json call = {{"name", c.name}, {"arguments", ParseStored(c.arguments_json)}};
  return "<tool_call>\n" + Dump(call) + "\n</tool_call>";
}

std::string XmlCall(const llm::ToolCall& c) {
  std::string out = "<tool_call>\n<function=" + c.name + ">\n";
  ordered_json args = ParseStored(c.arguments_json);
  if (!args.is_object()) args = ordered_json::object();
  for (auto it = args.begin(); it != args.end(); ++it) {
    std::string value = it.value().is_string() ? it.value().get<std::string>() : Dump(it.value());
    out += "<parameter=" + it.key() + ">\n" + value + "\n</parameter>\n";
  }
  out += "</function>\n</tool_call>";
  return out;
}

std::string Join(const std::string& text, const std::string& call) {
  if (text.empty()) return call;
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t + "\n" + call;
}

}  // namespace

std::optional<Format> ParseFormat(std::string_view name) {
  if (name == "openai") return Format::kOpenAI;
  if (name == "hermes") return Format::kHermes;
  if (name == "xml") return Format::kXml;
  return std::nullopt;
}

std::optional<ThinkMode> ParseThinkMode(std::string_view name) {
  if (name == "keep") return ThinkMode::kKeep;
  if (name == "drop") return ThinkMode::kDrop;
  if (name == "wrap") return ThinkMode::kWrap;
  return std::nullopt;
}

std::string_view FormatName(Format f) {
  switch (f) {
    case Format::kOpenAI: return "openai";
    case Format::kHermes: return "hermes";
    case Format::kXml: return "xml";
  }
  return "?";
}

Result<ExportTemplates> ExportTemplates::Load(const std::string& dir) {
  ExportTemplates t;
  for (auto [file, target] : {std::pair{"hermes_tools.md", &t.hermes_tools},
                              std::pair{"xml_tools.md", &t.xml_tools},
                              std::pair{"tool_response.md", &t.tool_response}}) {
    Result<std::string> text = ReadFile(dir + "/" + file);
    if (!text.ok()) return NotFoundError("export template missing: " + dir + "/" + file);
    *target = TrimTrailingNewline(*text);
  }
  return t;
}

Status ValidateConversation(const std::vector<llm::Message>& h, const std::string& submit_tool) {
  if (h.size() < 4) return FailedPreconditionError("conversation has " + std::to_string(h.size()) + " messages; a rollout needs at least system, user, one call and its result");
  if (h[0].role != llm::Role::kSystem) return FailedPreconditionError("message 0 is not the system prompt");
  if (h[1].role != llm::Role::kUser) return FailedPreconditionError("message 1 is not the instance prompt");
  std::size_t i = 2;
  std::string last_call;
  while (i < h.size()) {
    const llm::Message& a = h[i];
    if (a.role != llm::Role::kAssistant) {
      return FailedPreconditionError("message " + std::to_string(i) + " should be an assistant turn");
    }
    if (a.tool_calls.size() != 1) {
      return FailedPreconditionError("assistant message " + std::to_string(i) + " has " +
                                     std::to_string(a.tool_calls.size()) + " tool calls (expected 1)");
    }
    const llm::ToolCall& call = a.tool_calls.front();
    if (!call.arguments_valid) {
      return FailedPreconditionError("assistant message " + std::to_string(i) + " has invalid tool arguments");
    }
    if (i + 1 >= h.size()) return FailedPreconditionError("tool call '" + call.name + "' at message " + std::to_string(i) + " is never answered");
    const llm::Message& r = h[i + 1];
    if (r.role != llm::Role::kTool || r.tool_call_id != call.id) {
      return FailedPreconditionError("message " + std::to_string(i + 1) + " does not answer tool call '" + call.id + "'");
    }
    last_call = call.name;
    i += 2;
  }
  if (last_call != submit_tool) {
    return FailedPreconditionError("conversation ends with '" + last_call + "', not with the " + submit_tool + " tool");
  }
  return Status::Ok();
}

Result<std::string> BuildRecord(const agent::Trajectory& t, const RecordMetadata& md,
                                const ExportOptions& options, const ExportTemplates& templates) {
  Status valid = ValidateConversation(t.history, options.submit_tool);
  if (!valid.ok()) return valid.WithContext("task " + md.task_id + " rollout " + std::to_string(md.rollout));

  ordered_json tools = ToolsJson(t.tools);
  ordered_json messages = ordered_json::array();
  // The final observation of submit carries nothing to learn: records end on the submit call.
  std::size_t end = t.history.size() - 1;
  for (std::size_t i = 0; i < end; ++i) {
    const llm::Message& m = t.history[i];
    ordered_json msg;
    switch (m.role) {
      case llm::Role::kSystem: {
        std::string content = m.content;
        if (options.format != Format::kOpenAI) {
          const std::string& tmpl = options.format == Format::kHermes ? templates.hermes_tools : templates.xml_tools;
          SG_ASSIGN_OR_RETURN(std::string suffix, RenderTemplate(tmpl, {{"tools_json", Dump(tools)}}, "export tools"));
          content += suffix;
        }
        msg = {{"role", "system"}, {"content", content}};
        break;
      }
      case llm::Role::kUser:
        msg = {{"role", "user"}, {"content", m.content}};
        break;
      case llm::Role::kAssistant: {
        std::string text = AssistantText(m, options.think);
        const llm::ToolCall& c = m.tool_calls.front();
        if (options.format == Format::kOpenAI) {
          msg = {{"role", "assistant"}, {"content", text}};
          msg["tool_calls"] = ordered_json::array(
              {{{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments_json}}}}});
        } else {
          msg = {{"role", "assistant"},
                 {"content", Join(text, options.format == Format::kHermes ? HermesCall(c) : XmlCall(c))}};
        }
        if (options.think == ThinkMode::kKeep && !m.reasoning.empty()) msg["reasoning_content"] = m.reasoning;
        break;
      }
      case llm::Role::kTool: {
        if (options.format == Format::kOpenAI) {
          msg = {{"role", "tool"}, {"tool_call_id", m.tool_call_id}, {"content", m.content}};
        } else {
          SG_ASSIGN_OR_RETURN(std::string wrapped,
                              RenderTemplate(templates.tool_response, {{"content", m.content}}, "tool_response"));
          msg = {{"role", "user"}, {"content", wrapped}};
        }
        break;
      }
    }
    if (options.train_keys) msg["train"] = m.role == llm::Role::kAssistant;
    messages.push_back(std::move(msg));
  }

  ordered_json meta = {{"task_id", md.task_id},
                       {"run", md.run_name},
                       {"repo", md.repo},
                       {"commit", md.commit},
                       {"start_function", md.function_id},
                       {"file", md.file},
                       {"category_index", md.category_index},
                       {"category", md.category},
                       {"rollout", md.rollout},
                       {"exit_status", std::string(agent::ExitStatusName(t.exit_status))},
                       {"model", t.model},
                       {"usage",
                        {{"prompt_tokens", t.totals.prompt_tokens},
                         {"completion_tokens", t.totals.completion_tokens},
                         {"cached_prompt_tokens", t.totals.cached_prompt_tokens},
                         {"model_calls", t.totals.model_calls},
                         {"steps", t.totals.steps}}},
                       {"recipe_hash", md.recipe_hash},
                       {"prompts_hash", t.prompts_hash},
                       {"format", std::string(FormatName(options.format))}};
  if (md.scores) {
    meta["soft_verification"] = {{"recall", md.scores->recall},     {"precision", md.scores->precision},
                                 {"f1", md.scores->f1},             {"scorable", md.scores->scorable},
                                 {"accepted", md.scores->accepted}, {"threshold", md.scores->threshold}};
  }
  if (md.scripted_teacher) {
    meta["scripted_teacher"] = true;  // demo/test data from the built-in stand-in: not real training data
  }
  ordered_json record = {{"messages", messages}};
  if (options.include_tools) record["tools"] = tools;
  record["metadata"] = meta;
  return Dump(record);
}

}  // namespace seragen::exporter
