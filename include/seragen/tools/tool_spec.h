// Tool definitions (name, description, JSON-schema parameters) loaded from
// configs/tools.yaml, so wording and names change without recompiling.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::tools {

// What a tool does; the configured name may differ (e.g. "str_replace_editor").
enum class ToolRole { kBash, kEditor, kSubmit };

// The JSON types the validator understands.
enum class ParamType { kString, kInteger, kBoolean, kIntegerArray };

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kString;
  bool required = false;
  std::vector<std::string> enum_values;  // for strings; empty = any
};

struct ToolSpec {
  ToolRole role = ToolRole::kBash;
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
  // The "parameters" object as JSON text (sent to the model unchanged).
  std::string parameters_schema_json;

  const ParamSpec* FindParam(std::string_view param_name) const;
};

struct ToolSpecs {
  std::vector<ToolSpec> tools;
  // Put before every tool's observation (top-level `observation_prefix` of the
  // tools file; at most kMaxObservationPrefix bytes). Empty: none.
  std::string observation_prefix;
  static constexpr std::size_t kMaxObservationPrefix = 256;
  const ToolSpec* FindByName(std::string_view name) const;
  const ToolSpec* FindByRole(ToolRole role) const;
  // Comma-separated names, in file order (for messages).
  std::string NameList() const;
};

// Parses the tools file. The text is first rendered as a template with
// {{repo}} = `repo_dir` (where the agent sees the working copy). Every role
// must appear exactly once; names must be unique and non-empty; parameters
// must be an object schema whose properties have a supported type. Errors
// name the file and the tool.
Result<ToolSpecs> ParseToolSpecs(std::string_view yaml_text, std::string_view source_name,
                                 std::string_view repo_dir = "/repo");
Result<ToolSpecs> LoadToolSpecs(const std::string& path, std::string_view repo_dir = "/repo");

// [{"type":"function","function":{"name","description","parameters"}}, ...]
// as JSON text, in file order: the `tools` field of a chat request.
std::string OpenAiToolsJson(const ToolSpecs& specs);

std::string_view ToolRoleName(ToolRole role);

}  // namespace seragen::tools
