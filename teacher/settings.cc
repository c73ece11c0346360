#include "teacher/settings.h"

#include <climits>
#include <functional>
#include <limits>

#include "seragen/config/optional_settings.h"

namespace seragen::teacher {
namespace {

constexpr std::int64_t kNoMax = std::numeric_limits<std::int64_t>::max();

void BindPolicy(TeacherPolicySettings* p, config::OptionalSettings& t) {
  t.Text("reasoning", &p->reasoning, {"none", "reasoning", "reasoning_content", "think"});
  t.Number("raw_markup_rate", &p->raw_markup_rate, 0, 1);  // tool calls left as markup in content
  t.Text("raw_markup_style", &p->raw_markup_style, {"hermes", "qwen_xml", "glm"});
  t.Number("invalid_json_rate", &p->invalid_json_rate, 0, 1);
  t.Number("multi_call_rate", &p->multi_call_rate, 0, 1);
  t.Number("check_command_rate", &p->check_command_rate, 0, 1);
  t.Number("rollout2_same_edit_rate", &p->rollout2_same_edit_rate, 0, 1);
  t.Number("judge_yes_rate", &p->judge_yes_rate, 0, 1);
  t.Integer("stream_piece_bytes", &p->stream_piece_bytes, 1, INT_MAX);
}

// The file's keys, in the order their errors are listed.
void Bind(TeacherSettings* s, config::OptionalSettings& t) {
  t.Text("bind_address", &s->bind_address);
  t.Integer("port", &s->port, 0, 65535);  // 0: ephemeral
  t.Integer("threads", &s->threads, 1, 64);
  t.Integer("listen_backlog", &s->listen_backlog, 1, INT_MAX);
  t.Integer("seed", &s->seed, 0, kNoMax);
  t.Text("model_id", &s->model_id);
  t.Integer("context_window", &s->context_window, 16, INT_MAX);
  t.Integer("prefix_cache_blocks", &s->prefix_cache_blocks, 0, std::int64_t{1} << 24);  // 16-token blocks; 0: off
  t.Text("request_log", &s->request_log);
  t.Text("issue_tag", &s->issue_tag);
  t.Text("judge_tag", &s->judge_tag);
  t.Text("latency", &s->latency);
  t.Text("faults", &s->faults);
  config::OptionalSettings& tools = t.Section("tools");
  tools.Text("shell", &s->tools.shell);
  tools.Text("editor", &s->tools.editor);
  tools.Text("submit", &s->tools.submit);
  BindPolicy(&s->policy, t.Section("policy"));
}

template <typename T, typename U>
void Set(const std::optional<U>& value, T* target) {
  if (value) *target = static_cast<T>(*value);
}

// *out = parse(*text) when the key is present; an error names `key`.
template <typename T, typename Parse>
Status ParseInto(const std::optional<std::string>& text, Parse parse, const std::string& key, T* out) {
  if (!text) return Status::Ok();
  auto parsed = parse(*text);
  if (!parsed.ok()) return parsed.status().WithContext(key);
  *out = *parsed;
  return Status::Ok();
}

// The values given as names or specs; errors name the file and the key.
Status ApplyParsed(const TeacherSettings& s, const std::string& file, TeacherOptions* o) {
  SG_RETURN_IF_ERROR(ParseInto(s.latency, ParseLatencySpec, file + ": latency", &o->latency));
  SG_RETURN_IF_ERROR(ParseInto(s.faults, ParseFaultSpec, file + ": faults", &o->faults));
  SG_RETURN_IF_ERROR(ParseInto(s.policy.reasoning, ParseReasoningMode, file + ": policy", &o->knobs.reasoning));
  return ParseInto(s.policy.raw_markup_style, ParseRawMarkupStyle, file + ": policy", &o->knobs.raw_markup_style);
}

// The settings bound to a fresh table, filled by `load`.
Result<TeacherSettings> LoadWith(const std::function<Status(const config::OptionalSettings&)>& load) {
  TeacherSettings settings;
  config::OptionalSettings table;
  Bind(&settings, table);
  SG_RETURN_IF_ERROR(load(table));
  return settings;
}

}  // namespace

Result<TeacherSettings> LoadTeacherSettingsText(const std::string& yaml_text, const std::string& name) {
  return LoadWith([&](const config::OptionalSettings& table) { return table.Load(yaml_text, name); });
}

Result<TeacherSettings> LoadTeacherSettingsFile(const std::string& path) {
  return LoadWith([&](const config::OptionalSettings& table) { return table.LoadFile(path, "teacher settings"); });
}

Status ApplyTeacherSettings(const TeacherSettings& s, const std::string& file, TeacherOptions* o) {
  Set(s.bind_address, &o->bind_address);
  Set(s.port, &o->port);
  Set(s.threads, &o->threads);
  Set(s.listen_backlog, &o->listen_backlog);
  Set(s.seed, &o->seed);
  Set(s.model_id, &o->model_id);
  Set(s.context_window, &o->context_window);
  Set(s.prefix_cache_blocks, &o->prefix_cache_blocks);
  Set(s.request_log, &o->request_log_path);
  Set(s.issue_tag, &o->issue_tag);
  Set(s.judge_tag, &o->judge_tag);
  Set(s.tools.shell, &o->tools.shell);
  Set(s.tools.editor, &o->tools.editor);
  Set(s.tools.submit, &o->tools.submit);
  const TeacherPolicySettings& p = s.policy;
  Set(p.raw_markup_rate, &o->knobs.raw_markup_rate);
  Set(p.invalid_json_rate, &o->knobs.invalid_json_rate);
  Set(p.multi_call_rate, &o->knobs.multi_call_rate);
  Set(p.check_command_rate, &o->knobs.check_command_rate);
  Set(p.rollout2_same_edit_rate, &o->knobs.rollout2_same_edit_rate);
  Set(p.judge_yes_rate, &o->knobs.judge_yes_rate);
  Set(p.stream_piece_bytes, &o->knobs.stream_piece_bytes);
  return ApplyParsed(s, file, o);
}

}  // namespace seragen::teacher
