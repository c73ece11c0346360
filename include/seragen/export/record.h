// Training records built from trajectories (docs/DESIGN.md §5): one JSON object per
// line with `messages`, optional `tools`, and `metadata`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "seragen/agent/trajectory.h"
#include "seragen/base/result.h"

namespace seragen::exporter {

enum class Format { kHf, kOpenAI, kHermes, kXml };
enum class ThinkMode { kKeep, kDrop, kWrap };

std::optional<Format> ParseFormat(std::string_view name);        // hf | openai | hermes | xml
std::optional<ThinkMode> ParseThinkMode(std::string_view name);  // keep | drop | wrap
std::string_view FormatName(Format f);

// Model-visible wrappers used by the text formats, from prompts/export/.
struct ExportTemplates {
  std::string hermes_tools;   // system-prompt suffix listing tools; {{tools_json}}
  std::string xml_tools;      // same for the xml format; {{tools_xml}} (one <function> block per tool)
  std::string tool_response;  // user turn carrying a tool result; {{content}}

  static Result<ExportTemplates> Load(const std::string& dir);
};

struct ExportOptions {
  Format format = Format::kHf;
  ThinkMode think = ThinkMode::kKeep;
  bool train_keys = false;    // add "train": true|false to each message
  bool include_tools = true;  // add the tool schemas as `tools` (hf, openai; text formats list them in the system turn)
  std::string submit_tool = "submit";
  // Replace every tool-call id (in the call and its result) by 9 alphanumeric
  // characters, unique within the record (Mistral-family templates require it).
  bool short_tool_call_ids = false;
};

struct Scores {
  double recall = 0;
  double precision = 0;
  double f1 = 0;
  bool scorable = false;
  bool accepted = false;
  double threshold = 0;
  std::string rule;  // the verify rule that counted the lines: "sera" or "structural"
};

// Everything about the task a record carries besides the conversation.
struct RecordMetadata {
  std::string task_id;
  std::string run_name;
  std::string repo;
  std::string commit;
  std::string function_id;  // path::qualname
  std::string file;
  int category_index = 0;
  std::string category;
  int rollout = 1;
  std::optional<Scores> scores;  // rollout 2 only
  std::string recipe_hash;
  bool scripted_teacher = false;  // produced by the built-in stand-in, not a model
  std::string test_command;       // the repository's environment.test_command ("" when unset)
};

// Builds one record (a single JSON line, no trailing newline). Fails with
// kFailedPrecondition naming the task and the broken rule when the
// conversation does not validate (see ValidateConversation).
Result<std::string> BuildRecord(const agent::Trajectory& trajectory, const RecordMetadata& metadata,
                                const ExportOptions& options, const ExportTemplates& templates);

// The rules every exported conversation obeys: system, then user, then
// assistant turns each with exactly one tool call answered by the next
// message (a tool result carrying its id), and the last assistant turn calls
// the submit tool. Returns the first broken rule.
Status ValidateConversation(const std::vector<llm::Message>& history, const std::string& submit_tool);

}  // namespace seragen::exporter
