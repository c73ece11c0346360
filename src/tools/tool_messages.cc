#include "seragen/tools/tool_messages.h"

#include <yaml-cpp/yaml.h>

#include <set>
#include <vector>

#include "seragen/base/file_util.h"

namespace seragen::tools {
namespace {

struct KeySpec {
  const char* key;
  std::vector<const char*> placeholders;
};

// The contract between the code and prompts/tools/messages.yaml.
const std::vector<KeySpec>& KnownKeys() {
  static const std::vector<KeySpec> keys = {
      // bash
      {"bash_no_output", {}},
      {"bash_exit_code", {"exit_code"}},
      {"bash_truncated", {"omitted_bytes", "total_bytes"}},
      {"bash_timeout", {"timeout_seconds"}},
      {"bash_timeout_limit", {"count"}},
      {"bash_output_killed", {"limit_bytes"}},
      {"bash_env_dropped", {"names", "max_vars", "max_var_chars", "max_total_chars"}},
      {"bash_env_dropped_all", {"max_vars", "max_var_chars", "max_total_chars"}},
      {"bash_env_reset", {}},
      {"bash_empty_command", {}},
      {"bash_command_too_long", {"length", "limit", "editor_tool"}},
      {"bash_command_nul", {"position"}},
      {"bash_disabled", {"count"}},
      // all tools
      {"copy_too_large", {"limit_mb", "max_entries"}},
      // editor: paths
      {"path_empty", {"root"}},
      {"path_nul", {"root"}},
      {"path_outside", {"path", "root"}},
      {"path_not_found", {"path"}},
      {"path_too_many_links", {"path"}},
      {"missing_argument", {"command", "argument"}},
      {"io_error", {"action", "path", "error"}},
      // editor: view
      {"view_file", {"path", "total", "content"}},
      {"view_file_range", {"path", "first", "last", "total", "content"}},
      {"view_empty_file", {"path"}},
      {"view_clipped", {"last_line", "total", "next_line", "max_chars", "max_lines"}},
      {"view_invalid_utf8", {}},
      {"view_binary", {"path", "size"}},
      {"view_directory", {"path", "listing"}},
      {"view_directory_clipped", {"shown", "total"}},
      {"view_range_on_directory", {"path"}},
      {"view_range_malformed", {"range"}},
      {"view_range_out_of_bounds", {"range", "total"}},
      {"view_range_clamped", {"total"}},
      // editor: changes
      {"not_a_file", {"path", "command"}},
      {"file_too_large", {"path", "size", "limit"}},
      {"edit_binary", {"path"}},
      {"create_exists", {"path"}},
      {"create_done", {"path", "lines"}},
      {"str_replace_empty_old", {}},
      {"str_replace_same", {}},
      {"str_replace_no_match", {"path"}},
      {"str_replace_multiple", {"path", "count", "lines"}},
      {"edit_done", {"path", "first", "last", "snippet"}},
      {"edit_snippet_clipped", {"max_chars"}},
      {"insert_out_of_range", {"line", "total"}},
      {"insert_done", {"path", "count", "line", "first", "last", "snippet"}},
      {"undo_nothing", {"path"}},
      {"undo_done", {"path", "remaining"}},
      {"undo_removed", {"path"}},
      // submit
      {"submit_review", {"diff", "submit_tool"}},
      {"submit_review_empty", {"submit_tool"}},
      {"submit_review_clipped", {"shown", "total"}},
      // argument validation (format errors)
      {"error_unknown_tool", {"tool", "tools"}},
      {"error_invalid_json", {"tool", "detail"}},
      {"error_not_object", {"tool"}},
      {"error_missing_argument", {"tool", "argument"}},
      {"error_unexpected_argument", {"tool", "argument", "allowed"}},
      {"error_wrong_type", {"tool", "argument", "expected"}},
      {"error_invalid_value", {"tool", "argument", "allowed"}},
      {"type_string", {}},
      {"type_integer", {}},
      {"type_boolean", {}},
      {"type_integer_array", {}},
  };
  return keys;
}

}  // namespace

Result<ToolMessages> ToolMessages::Parse(std::string_view yaml_text, std::string_view source_name) {
  const std::string src(source_name);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    return ParseError(src + ": invalid YAML: " + e.what());
  }
  if (!root.IsMap()) return ParseError(src + ": expected a mapping of message keys to templates");
  ToolMessages messages;
  messages.source_ = src;
  for (const auto& kv : root) {
    std::string key;
    try {
      key = kv.first.as<std::string>();
      if (!kv.second.IsScalar()) return ParseError(src + ": " + key + " must be a string");
      messages.templates_[key] = kv.second.as<std::string>();
    } catch (const YAML::Exception& e) {
      return ParseError(src + ": " + key + ": " + e.what());
    }
  }
  std::set<std::string> known;
  for (const KeySpec& spec : KnownKeys()) {
    known.insert(spec.key);
    auto it = messages.templates_.find(spec.key);
    if (it == messages.templates_.end()) {
      return ParseError(src + ": missing message \"" + spec.key + "\"");
    }
    std::set<std::string> allowed(spec.placeholders.begin(), spec.placeholders.end());
    for (const auto& used : TemplatePlaceholders(it->second)) {
      if (!allowed.count(used)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        return ParseError(src + ": message \"" + spec.key + "\" uses unknown placeholder {{" + used +
                          "}} (available: " + (list.empty() ? "none" : list) + ")");
      }
    }
  }
  for (const auto& [key, text] : messages.templates_) {
    if (!known.count(key)) return ParseError(src + ": unknown message key \"" + key + "\"");
  }
  return messages;
}

Result<ToolMessages> ToolMessages::Load(const std::string& path) {
  SG_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return Parse(text, path);
}

Result<std::string> ToolMessages::Render(std::string_view key, const TemplateValues& values) const {
  auto it = templates_.find(key);
  if (it == templates_.end()) {
    return NotFoundError(source_ + ": no message \"" + std::string(key) + "\"");
  }
  return RenderTemplate(it->second, values, source_ + ":" + std::string(key));
}

const std::string& ToolMessages::Raw(std::string_view key) const {
  static const std::string empty;
  auto it = templates_.find(key);
  return it == templates_.end() ? empty : it->second;
}

}  // namespace seragen::tools
