#include <nlohmann/json.hpp>

#include <set>

#include "export/record_json.h"
#include "export/sharegpt_record.h"
#include "seragen/base/enum_names.h"
#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/template.h"
#include "seragen/export/record.h"
#include "seragen/export/test_runs.h"
#include "seragen/verify/sera_lines.h"

namespace seragen::exporter {

namespace internal {

using nlohmann::ordered_json;

Result<ordered_json> ParseObject(const std::string& text, const std::string& what) {
  SG_RETURN_IF_ERROR(CheckJsonDepth(text, what, kMaxJsonDepth));
  ordered_json j = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return FailedPreconditionError(what + " is not a JSON object");
  return j;
}

Result<ordered_json> Arguments(const llm::ToolCall& c) {
  return ParseObject(c.arguments_json, "arguments of tool call '" + c.id + "'");
}

std::string TemplateJson(const ordered_json& j, bool ascii) {
  if (j.is_object()) {
    std::string out = "{";
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it != j.begin()) out += ", ";
      out += ordered_json(it.key()).dump(-1, ' ', ascii, ordered_json::error_handler_t::replace);
      out += ": " + TemplateJson(it.value(), ascii);
    }
    return out + "}";
  }
  if (j.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < j.size(); ++i) out += (i ? ", " : "") + TemplateJson(j[i], ascii);
    return out + "]";
  }
  return j.dump(-1, ' ', ascii, ordered_json::error_handler_t::replace);
}

Result<std::string> CallJson(const llm::ToolCall& c, bool ascii) {
  SG_ASSIGN_OR_RETURN(ordered_json args, Arguments(c));
  return TemplateJson(ordered_json{{"name", c.name}, {"arguments", std::move(args)}}, ascii);
}

}  // namespace internal

namespace {

using internal::Arguments;
using internal::CallJson;
using internal::ParseObject;
using internal::TemplateJson;
using nlohmann::ordered_json;

std::string TrimTrailingNewline(std::string s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// OpenAI function schemas. With parameters_as_string each tool's `parameters`
// is its JSON Schema as compact JSON text: columnar loaders then see the same
// column type for every tool and row instead of one struct merged from the
// properties of all tools (see docs/RECORDS.md).
Result<ordered_json> ToolsJson(const std::vector<llm::ToolSpec>& tools, bool parameters_as_string) {
  ordered_json arr = ordered_json::array();
  for (const auto& t : tools) {
    SG_ASSIGN_OR_RETURN(ordered_json params, ParseObject(t.parameters_json, "parameters of tool '" + t.name + "'"));
    ordered_json p = parameters_as_string
                         ? ordered_json(params.dump(-1, ' ', false, ordered_json::error_handler_t::replace))
                         : params;
    arr.push_back({{"type", "function"},
                   {"function", {{"name", t.name}, {"description", t.description}, {"parameters", std::move(p)}}}});
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

// Hermes/Qwen style: {"name": ..., "arguments": {...}} inside <tool_call>;
// `ascii` as in TemplateJson (the sera format writes Python's json.dumps).
Result<std::string> HermesCall(const llm::ToolCall& c, bool ascii = false) {
  SG_ASSIGN_OR_RETURN(std::string call, CallJson(c, ascii));
  return "<tool_call>\n" + call + "\n</tool_call>";
}

// Qwen3-Coder style: one <parameter=KEY> block per argument, strings as
// they are, other values as template JSON.
Result<std::string> XmlCall(const llm::ToolCall& c) {
  std::string out = "<tool_call>\n<function=" + c.name + ">\n";
  SG_ASSIGN_OR_RETURN(ordered_json args, Arguments(c));
  for (auto it = args.begin(); it != args.end(); ++it) {
    std::string value = it.value().is_string() ? it.value().get<std::string>() : TemplateJson(it.value());
    out += "<parameter=" + it.key() + ">\n" + value + "\n</parameter>\n";
  }
  out += "</function>\n</tool_call>";
  return out;
}

// The xml format's tool list, laid out as Qwen3-Coder-style templates list
// tools: one <function> block per tool with a <parameter> block per property
// (name, type, description; other schema fields as template JSON).
std::string ToolXml(const ordered_json& tools) {
  std::string out;
  for (const auto& t : tools) {
    const ordered_json& f = t["function"];
    out += "<function>\n<name>" + f.value("name", "") + "</name>\n";
    if (f.contains("description") && f["description"].is_string()) {
      out += "<description>" + f["description"].get<std::string>() + "</description>\n";
    }
    out += "<parameters>\n";
    const ordered_json& params = f["parameters"];
    if (params.is_object() && params.contains("properties") && params["properties"].is_object()) {
      for (auto it = params["properties"].begin(); it != params["properties"].end(); ++it) {
        out += "<parameter>\n<name>" + it.key() + "</name>\n";
        if (!it.value().is_object()) {
          out += "</parameter>\n";
          continue;
        }
        for (auto field = it.value().begin(); field != it.value().end(); ++field) {
          std::string v = field.value().is_string() ? field.value().get<std::string>() : TemplateJson(field.value());
          out += "<" + field.key() + ">" + v + "</" + field.key() + ">\n";
        }
        out += "</parameter>\n";
      }
    }
    if (params.is_object() && params.contains("required")) {
      out += "<required>" + TemplateJson(params["required"]) + "</required>\n";
    }
    out += "</parameters>\n</function>\n";
  }
  if (!out.empty()) out.pop_back();
  return out;
}

// The tool list of the text formats' system turn: one tool per line.
std::string ToolLines(const ordered_json& tools) {
  std::string out;
  for (const auto& t : tools) out += (out.empty() ? "" : "\n") + TemplateJson(t);
  return out;
}

// Hermes/Qwen2.5 style: the turn's text as it is, a newline, then the call
// (templates print the content untrimmed before "\n<tool_call>").
std::string Join(const std::string& text, const std::string& call) {
  if (text.empty()) return call;
  return text + "\n" + call;
}

// Qwen3-Coder style: the turn's text with surrounding whitespace trimmed (as
// templates `trim` it), a blank line, then the call.
std::string JoinXml(const std::string& text, const std::string& call) {
  const char* space = " \t\n\r\f\v";
  std::size_t first = text.find_first_not_of(space);
  if (first == std::string::npos) return call;
  return text.substr(first, text.find_last_not_of(space) - first + 1) + "\n\n" + call;
}

// The conversation with each tool call's id replaced by 9 hex digits (so
// alphanumeric), unique within the record, and each result given the id of
// the call it answers (ValidateConversation: it directly follows the call).
// Per occurrence, so a server that reuses ids still gets distinct ones.
std::vector<llm::Message> ShortenToolCallIds(std::vector<llm::Message> history) {
  std::set<std::string> used;
  std::string last;
  for (llm::Message& m : history) {
    for (llm::ToolCall& c : m.tool_calls) {
      std::string id;
      for (int salt = 0; id.empty() || used.count(id) > 0; ++salt) {
        id = Sha256Hex(c.id + "#" + std::to_string(used.size()) + "#" + std::to_string(salt)).substr(0, 9);
      }
      used.insert(id);
      c.id = last = id;
    }
    if (m.role == llm::Role::kTool) m.tool_call_id = last;
  }
  return history;
}

// One `hf` message. Every message has the same six keys whatever its role
// (absent values are null) so that every row of every file of an export has
// one schema. Tool-call arguments are one compact JSON-object string: as
// objects, a columnar loader (Arrow) would merge every tool's argument keys
// into one struct and give each call the other tools' keys as nulls.
Result<ordered_json> HfMessage(const llm::Message& m, const std::string& tool_name, ThinkMode think) {
  ordered_json msg = {{"role", std::string(llm::RoleName(m.role))},
                      {"content", m.content},
                      {"reasoning_content", nullptr},
                      {"tool_calls", nullptr},
                      {"tool_call_id", nullptr},
                      {"name", nullptr}};
  if (m.role == llm::Role::kAssistant) {
    msg["content"] = AssistantText(m, think);
    if (think == ThinkMode::kKeep && !m.reasoning.empty()) msg["reasoning_content"] = m.reasoning;
    ordered_json calls = ordered_json::array();
    for (const llm::ToolCall& c : m.tool_calls) {
      SG_ASSIGN_OR_RETURN(ordered_json args, Arguments(c));
      std::string text = args.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
      calls.push_back(
          {{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", std::move(text)}}}});
    }
    msg["tool_calls"] = std::move(calls);
  } else if (m.role == llm::Role::kTool) {
    msg["tool_call_id"] = m.tool_call_id;
    msg["name"] = tool_name;
  }
  return msg;
}

// One message of the openai, hermes or xml formats (layouts unchanged from
// the first export version; openai follows OpenAI's fine-tuning format).
Result<ordered_json> LegacyMessage(const llm::Message& m, const ExportOptions& options,
                                   const ExportTemplates& templates, const ordered_json& tools) {
  ordered_json msg;
  switch (m.role) {
    case llm::Role::kSystem: {
      std::string content = m.content;
      if (options.format != Format::kOpenAI) {
        const std::string& tmpl = options.format == Format::kHermes ? templates.hermes_tools : templates.xml_tools;
        std::string tools_text = options.format == Format::kHermes ? ToolLines(tools) : ToolXml(tools);
        SG_ASSIGN_OR_RETURN(
            std::string suffix,
            RenderTemplate(tmpl, {{options.format == Format::kHermes ? "tools_json" : "tools_xml", tools_text}},
                           "export tools"));
        content += suffix;
      }
      msg = {{"role", "system"}, {"content", content}};
      break;
    }
    case llm::Role::kUser: msg = {{"role", "user"}, {"content", m.content}}; break;
    case llm::Role::kAssistant: {
      std::string text = AssistantText(m, options.think);
      const llm::ToolCall& c = m.tool_calls.front();
      if (options.format == Format::kOpenAI) {
        msg = {{"role", "assistant"}, {"content", text}};
        msg["tool_calls"] = ordered_json::array(
            {{{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments_json}}}}});
      } else {
        SG_ASSIGN_OR_RETURN(std::string call, options.format == Format::kHermes ? HermesCall(c) : XmlCall(c));
        msg = {{"role", "assistant"},
               {"content", options.format == Format::kHermes ? Join(text, call) : JoinXml(text, call)}};
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
  return msg;
}

// The sera format's assistant turn, as SERA's post-processing writes it
// (keep_only_think): a think block holding the reasoning, or the visible text
// when there is no reasoning (each stripped as Python's str.strip()), a blank
// line, then the call as Python's json.dumps writes it. Text next to
// reasoning is dropped. A turn whose text already holds think tags has no
// single reading (SERA drops such rows): an error.
Result<std::string> SeraAssistant(const llm::Message& m) {
  auto tagged = [](const std::string& s) {
    return s.find("<think>") != std::string::npos || s.find("</think>") != std::string::npos;
  };
  if (tagged(m.reasoning) || tagged(m.content)) {
    return FailedPreconditionError("an assistant turn holds <think> tags in its text; the sera format cannot place it");
  }
  std::string_view think = verify::PythonStrip(m.reasoning);
  if (think.empty()) think = verify::PythonStrip(m.content);
  SG_ASSIGN_OR_RETURN(std::string call, HermesCall(m.tool_calls.front(), /*ascii=*/true));
  return "<think>\n" + std::string(think) + "\n</think>\n\n" + call;
}

// One message of the sera format: roles system, user, assistant only, and a
// `train` key on each (true on assistant turns), as axolotl's
// message_field_training reads it.
Result<ordered_json> SeraMessage(const llm::Message& m, const ExportTemplates& templates, const ordered_json& tools) {
  std::string content = m.content;
  std::string role = "user";
  if (m.role == llm::Role::kSystem) {
    role = "system";
    SG_ASSIGN_OR_RETURN(std::string framing,
                        RenderTemplate(templates.sera_tools, {{"tools_json", ToolLines(tools)}}, "sera tools framing"));
    content += framing;
  } else if (m.role == llm::Role::kAssistant) {
    role = "assistant";
    SG_ASSIGN_OR_RETURN(content, SeraAssistant(m));
  } else if (m.role == llm::Role::kTool) {
    SG_ASSIGN_OR_RETURN(content, RenderTemplate(templates.tool_response, {{"content", m.content}}, "tool_response"));
  }
  return ordered_json{{"role", role}, {"content", content}, {"train", m.role == llm::Role::kAssistant}};
}

// The same keys and value types on every record of every format: values a
// record lacks are null (soft_verification on T1) rather than missing.
ordered_json MetadataJson(const agent::Trajectory& t, const RecordMetadata& md, Format format) {
  ordered_json meta = {{"task_id", md.task_id},
                       {"run", md.run_name},
                       {"repo", md.repo},
                       {"commit", md.commit},
                       {"start_function", md.function_id},
                       {"file", md.file},
                       {"category_index", md.category_index},
                       {"category", md.category},
                       {"planned_category_index", md.planned_category_index},
                       {"seed", md.seed ? ordered_json(*md.seed) : ordered_json(nullptr)},
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
                       {"format", std::string(FormatName(format))},
                       {"soft_verification", nullptr},
                       // Demo/test data from the built-in stand-in: not real training data.
                       {"scripted_teacher", md.scripted_teacher}};
  // The rollout's last test run (test_runs.h), null when it ran no tests:
  // the model's own command and what it saw, never evidence ("source").
  meta["tests"] = nullptr;
  if (std::optional<TestRun> run = md.model_tests ? *md.model_tests : LastTestRun(t, md.test_command)) {
    meta["tests"] = {
        {"command", run->command}, {"exit_code", run->exit_code}, {"passed", run->passed()}, {"source", "model"}};
  }
  if (md.scores) {
    // Doubles always, so a score of exactly 1 or 0 keeps the column's type.
    meta["soft_verification"] = {
        {"recall", md.scores->recall},     {"precision", md.scores->precision}, {"f1", md.scores->f1},
        {"scorable", md.scores->scorable}, {"accepted", md.scores->accepted},   {"threshold", md.scores->threshold},
        {"rule", md.scores->rule}};
  }
  return meta;
}

// The sharegpt record (sharegpt_record.h) ending on the submit call, with
// `metadata`; `tools` is "" without include_tools.
Result<std::string> SharegptLine(const agent::Trajectory& t, const RecordMetadata& md, const ExportOptions& options) {
  std::vector<llm::Message> history = t.history;  // the layout carries no call ids
  history.pop_back();                             // the submit call's result carries nothing to learn
  Result<ordered_json> record = internal::SharegptRecord(history, t.tools, options.think);
  if (!record.ok()) return record.status().WithContext("task " + md.task_id + " rollout " + std::to_string(md.rollout));
  if (!options.include_tools) (*record)["tools"] = "";
  (*record)["metadata"] = MetadataJson(t, md, options.format);
  return record->dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace

constexpr std::pair<Format, std::string_view> kFormatNames[] = {
    {Format::kHf, "hf"},   {Format::kOpenAI, "openai"}, {Format::kHermes, "hermes"},
    {Format::kXml, "xml"}, {Format::kSera, "sera"},     {Format::kSharegpt, "sharegpt"}};
constexpr std::pair<ThinkMode, std::string_view> kThinkModeNames[] = {
    {ThinkMode::kKeep, "keep"}, {ThinkMode::kDrop, "drop"}, {ThinkMode::kWrap, "wrap"}};

std::optional<Format> ParseFormat(std::string_view name) { return ValueNamed<Format>(kFormatNames, name); }

std::optional<ThinkMode> ParseThinkMode(std::string_view name) { return ValueNamed<ThinkMode>(kThinkModeNames, name); }

std::string_view FormatName(Format f) { return NameOf<Format>(kFormatNames, f, "?"); }

std::vector<std::string> FormatNames() {
  std::vector<std::string> out;
  for (const auto& [format, name] : kFormatNames) out.emplace_back(name);
  return out;
}

Result<ExportTemplates> ExportTemplates::Load(const std::string& dir) {
  ExportTemplates t;
  for (auto [file, target] : {std::pair{"hermes_tools.md", &t.hermes_tools}, std::pair{"xml_tools.md", &t.xml_tools},
                              std::pair{"tool_response.md", &t.tool_response}}) {
    Result<std::string> text = ReadFile(dir + "/" + file);
    if (!text.ok()) return NotFoundError("export template missing: " + dir + "/" + file);
    *target = TrimTrailingNewline(*text);
  }
  return t;
}

Status ExportTemplates::LoadSeraFraming(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return NotFoundError("sera tools framing file missing: " + path);
  std::size_t sep = text->find("\n-----\n");
  if (sep == std::string::npos) {
    return InvalidArgumentError("sera tools framing file " + path +
                                " has no line of five dashes between its header and the framing text");
  }
  std::string header = "\n" + text->substr(0, sep);
  if (header.find("\nsource:") == std::string::npos || header.find("\nlicence:") == std::string::npos) {
    return InvalidArgumentError("sera tools framing file " + path + " does not name its source: and licence:");
  }
  sera_tools = TrimTrailingNewline(text->substr(sep + 7));
  return Status::Ok();
}

Status ValidateConversation(const std::vector<llm::Message>& h, const std::string& submit_tool) {
  if (h.size() < 4)
    return FailedPreconditionError("conversation has " + std::to_string(h.size()) +
                                   " messages; a rollout needs at least system, user, one call and its result");
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
    if (i + 1 >= h.size())
      return FailedPreconditionError("tool call '" + call.name + "' at message " + std::to_string(i) +
                                     " is never answered");
    const llm::Message& r = h[i + 1];
    if (r.role != llm::Role::kTool || r.tool_call_id != call.id) {
      return FailedPreconditionError("message " + std::to_string(i + 1) + " does not answer tool call '" + call.id +
                                     "'");
    }
    last_call = call.name;
    i += 2;
  }
  if (last_call != submit_tool) {
    return FailedPreconditionError("conversation ends with '" + last_call + "', not with the " + submit_tool + " tool");
  }
  return Status::Ok();
}

Result<std::string> BuildRecord(const agent::Trajectory& t, const RecordMetadata& md, const ExportOptions& options,
                                const ExportTemplates& templates) {
  Status valid = ValidateConversation(t.history, options.submit_tool);
  if (!valid.ok()) return valid.WithContext("task " + md.task_id + " rollout " + std::to_string(md.rollout));
  auto context = [&](Status s) {
    return s.WithContext("task " + md.task_id + " rollout " + std::to_string(md.rollout));
  };

  if (options.format == Format::kSharegpt) return SharegptLine(t, md, options);
  const bool hf = options.format == Format::kHf;
  Result<ordered_json> tools = ToolsJson(t.tools, /*parameters_as_string=*/hf);
  if (!tools.ok()) return context(tools.status());
  ordered_json messages = ordered_json::array();
  std::vector<llm::Message> shortened;
  if (options.short_tool_call_ids) shortened = ShortenToolCallIds(t.history);
  const std::vector<llm::Message>& history = options.short_tool_call_ids ? shortened : t.history;
  // The final observation of submit carries nothing to learn: records end on
  // the submit call, except sera's, which keep it as SERA's do (a user turn).
  const bool sera = options.format == Format::kSera;
  std::size_t end = sera ? history.size() : history.size() - 1;
  for (std::size_t i = 0; i < end; ++i) {
    const llm::Message& m = history[i];
    Result<ordered_json> msg = ordered_json();
    if (sera) {
      msg = SeraMessage(m, templates, *tools);
    } else if (hf) {
      // ValidateConversation guarantees a tool message follows the call it answers.
      const std::string& tool_name = m.role == llm::Role::kTool ? history[i - 1].tool_calls.front().name : m.name;
      msg = HfMessage(m, tool_name, options.think);
    } else {
      msg = LegacyMessage(m, options, templates, *tools);
    }
    if (!msg.ok()) return context(msg.status());
    if (options.train_keys && !sera) (*msg)["train"] = m.role == llm::Role::kAssistant;
    messages.push_back(std::move(*msg));
  }

  ordered_json record = {{"messages", std::move(messages)}};
  // Text formats carry the tools inside the system turn; a column would show them twice.
  bool text_format = options.format == Format::kHermes || options.format == Format::kXml || sera;
  if (options.include_tools && !text_format) record["tools"] = std::move(*tools);
  record["metadata"] = MetadataJson(t, md, options.format);
  // Total: bytes that are not UTF-8 become U+FFFD instead of throwing.
  return record.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace seragen::exporter
