// ToolBox: the agent's tools for one rollout. Validates a model's tool call
// (name + JSON arguments text) against the configured schemas, then runs it.
//
// Two kinds of failure stay apart:
//  - ValidationError: the model's call is malformed (unknown tool, invalid
//    JSON, missing/extra/ill-typed argument). The agent loop turns it into a
//    format-error observation and a retry; `message` is ready to show.
//  - a non-OK Status from Call(): infrastructure (sandbox or patch failure).
// Everything else, including refused paths and failed commands, is a normal
// observation. Not thread-safe; one ToolBox per rollout.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/sandbox/command_runner.h"
#include "seragen/sandbox/copy_usage.h"
#include "seragen/tools/bash_tool.h"
#include "seragen/tools/file_editor.h"
#include "seragen/tools/submit_tool.h"
#include "seragen/tools/tool_messages.h"
#include "seragen/tools/tool_options.h"
#include "seragen/tools/tool_spec.h"

namespace seragen::tools {

enum class ValidationErrorKind {
  kUnknownTool,
  kInvalidJson,
  kNotAnObject,
  kMissingArgument,
  kUnexpectedArgument,
  kWrongType,
  kInvalidValue,
};

struct ValidationError {
  ValidationErrorKind kind = ValidationErrorKind::kInvalidJson;
  std::string tool;
  std::string argument;  // empty when not about one argument
  std::string message;   // rendered from prompts/tools/messages.yaml
};

using ArgValue = std::variant<std::string, long long, bool, std::vector<long long>>;

// A call that passed validation: arguments converted to their schema types
// (numeric strings become integers where the schema says integer; JSON null
// counts as absent).
struct ValidatedCall {
  const ToolSpec* spec = nullptr;
  std::map<std::string, ArgValue, std::less<>> args;

  std::optional<std::string> String(std::string_view name) const;
  std::optional<long long> Integer(std::string_view name) const;
  std::optional<std::vector<long long>> IntegerList(std::string_view name) const;
};

struct ToolOutcome {
  ToolRole role = ToolRole::kBash;
  std::string observation;
  bool submitted = false;
  std::string patch;             // when submitted
  bool patch_too_large = false;  // submit: the diff is over its size limit
  bool timed_out = false;        // bash: the command hit its time limit
  std::optional<int> exit_code;  // bash: the command's exit status, when it ran and was not stopped
  bool stop_requested = false;   // bash: consecutive-timeout cap reached
  bool disk_limit = false;       // the copy grew past options.max_copy_bytes
};

struct ToolCallResult {
  std::optional<ValidationError> validation_error;
  ToolOutcome outcome;  // meaningful when validation_error is empty
};

// Specs + messages, loaded once per run and shared (read-only) by ToolBoxes.
struct ToolResources {
  ToolSpecs specs;
  ToolMessages messages;
};
// repo_dir: where commands see the working copy (CommandRunner::VisibleRoot
// of the runners that will be used; "/repo" by default).
Result<ToolResources> LoadToolResources(const std::string& tools_yaml_path, const std::string& messages_yaml_path,
                                        std::string_view repo_dir = "/repo");

class ToolBox {
 public:
  // All pointers must outlive the ToolBox. `host_copy` is the working copy's
  // host path; the editor shows paths under runner->VisibleRoot().
  // `meter` measures the copy for options.max_copy_bytes (nullptr = a
  // DirectoryCopyMeter over host_copy, owned by the ToolBox).
  ToolBox(const ToolResources* resources, sandbox::CommandRunner* runner, std::string host_copy, PatchSource* patches,
          ToolOptions options, sandbox::CopyMeter* meter = nullptr);

  // Checks a call without running it; exactly one of the two is set.
  struct Validation {
    std::optional<ValidatedCall> call;
    std::optional<ValidationError> error;
  };
  Validation Validate(std::string_view tool_name, std::string_view arguments_json) const;

  Result<ToolCallResult> Call(std::string_view tool_name, std::string_view arguments_json);

  FileEditor& editor() { return editor_; }
  BashTool& bash() { return bash_; }

 private:
  Result<ToolOutcome> Execute(const ValidatedCall& call);
  // Measures the copy after a change; over the limit sets disk_limit and
  // appends the note. Non-OK when the copy cannot be read at all.
  Status CheckCopySize(ToolOutcome* out);

  const ToolResources* resources_;
  std::uint64_t max_copy_bytes_;
  std::uint64_t max_copy_entries_;
  std::unique_ptr<sandbox::CopyMeter> own_meter_;
  sandbox::CopyMeter* meter_;
  FileEditor editor_;
  BashTool bash_;
  SubmitTool submit_;
};

}  // namespace seragen::tools
