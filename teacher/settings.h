// The settings file of the scripted teacher (`seragen-teacher --config FILE`,
// configs/teacher.yaml): its format is the teacher's own, read through
// config's table of optional keys (config/optional_settings.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "seragen/base/result.h"
#include "teacher/options.h"

namespace seragen::teacher {

// Every key is optional: a key present in the file has a value, an absent key
// leaves the teacher's built-in default in place. Enumerations stay strings
// checked against their choices; latency and faults stay spec strings
// (ParseLatencySpec, ParseFaultSpec).
struct TeacherPolicySettings {
  std::optional<std::string> reasoning;  // none | reasoning | reasoning_content | think
  std::optional<double> raw_markup_rate;
  std::optional<std::string> raw_markup_style;  // hermes | qwen_xml | glm
  std::optional<double> invalid_json_rate;
  std::optional<double> multi_call_rate;
  std::optional<double> check_command_rate;
  std::optional<double> rollout2_same_edit_rate;
  std::optional<double> judge_yes_rate;
  std::optional<std::int64_t> stream_piece_bytes;
};

struct TeacherToolSettings {
  std::optional<std::string> shell;
  std::optional<std::string> editor;
  std::optional<std::string> submit;
};

struct TeacherSettings {
  std::optional<std::string> bind_address;
  std::optional<std::int64_t> port;
  std::optional<std::int64_t> threads;
  std::optional<std::int64_t> listen_backlog;
  std::optional<std::int64_t> seed;
  std::optional<std::string> model_id;
  std::optional<std::int64_t> context_window;
  std::optional<std::int64_t> prefix_cache_blocks;
  std::optional<std::string> request_log;  // used as written (relative to the working directory)
  std::optional<std::string> issue_tag;
  std::optional<std::string> judge_tag;
  std::optional<std::string> latency;
  std::optional<std::string> faults;
  TeacherToolSettings tools;
  TeacherPolicySettings policy;
};

// Reads and checks `path`. On failure the Status is kInvalidArgument and its
// message lists every problem as "file:line:col: key.path: message", like
// the run configuration's errors (unknown keys with a suggestion, wrong
// types, values outside their range or choices).
Result<TeacherSettings> LoadTeacherSettingsFile(const std::string& path);

// Same, from YAML text; `name` stands for the file in messages.
Result<TeacherSettings> LoadTeacherSettingsText(const std::string& yaml_text, const std::string& name);

// Copies every key present in `settings` onto *options (absent keys keep
// what *options holds). Latency and fault specs are parsed here; an invalid
// one is kInvalidArgument naming `file` and the key ("FILE: latency: ...").
Status ApplyTeacherSettings(const TeacherSettings& settings, const std::string& file, TeacherOptions* options);

}  // namespace seragen::teacher
