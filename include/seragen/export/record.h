// Training records built from trajectories (docs/DESIGN.md §5): one JSON object per
// line with `messages`, optional `tools`, and `metadata`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "seragen/agent/trajectory.h"
#include "seragen/base/result.h"
#include "seragen/export/test_runs.h"

namespace seragen::exporter {

enum class Format { kHf, kOpenAI, kHermes, kXml, kSera, kSharegpt };
enum class ThinkMode { kKeep, kDrop, kWrap };

std::optional<Format> ParseFormat(std::string_view name);        // hf | openai | hermes | xml | sera | sharegpt
std::optional<ThinkMode> ParseThinkMode(std::string_view name);  // keep | drop | wrap
std::string_view FormatName(Format f);
// Every format's name, in the order of Format.
std::vector<std::string> FormatNames();

// Model-visible wrappers used by the text formats, from prompts/export/.
struct ExportTemplates {
  std::string hermes_tools;   // system-prompt suffix listing tools; {{tools_json}}
  std::string xml_tools;      // same for the xml format; {{tools_xml}} (one <function> block per tool)
  std::string tool_response;  // user turn carrying a tool result; {{content}}
  // The sera format's system-turn suffix: the student's chat-template framing
  // around the tool list; {{tools_json}}. Empty until LoadSeraFraming.
  std::string sera_tools;

  static Result<ExportTemplates> Load(const std::string& dir);
  // Reads a framing file (prompts/export/sera_tools_qwen_hermes.md is the
  // default): header lines naming at least `source:` and `licence:`, a line
  // of five dashes, then the framing text (its final newline dropped).
  // InvalidArgument naming the file when the header or separator is missing.
  Status LoadSeraFraming(const std::string& path);
};

// The default framing file of the sera format, under the prompts directory.
inline constexpr const char* kDefaultSeraFraming = "export/sera_tools_qwen_hermes.md";

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
  int category_index = 0;  // the category the rollout's attempt was given
  std::string category;
  int planned_category_index = 0;     // the plan's category (differs after a judge retry)
  std::optional<std::uint64_t> seed;  // the rollout's sampling seed, when recorded
  int rollout = 1;
  std::optional<Scores> scores;  // rollout 2 only
  std::string recipe_hash;
  bool scripted_teacher = false;  // produced by the built-in stand-in, not a model
  std::string test_command;       // the repository's environment.test_command ("" when unset)
  // metadata.tests: the rollout's last test run as the model ran it
  // (LastTestRun over its raw turns, taken before the secret scan, which
  // then redacts its command); nullopt: LastTestRun of the trajectory given.
  std::optional<std::optional<TestRun>> model_tests;
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
