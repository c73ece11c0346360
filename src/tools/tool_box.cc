#include "seragen/tools/tool_box.h"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "seragen/base/json_depth.h"
#include "seragen/base/utf8.h"

namespace seragen::tools {
namespace {

using nlohmann::json;

// Tool names and argument keys from the model are echoed up to this many bytes.
constexpr std::size_t kMaxEchoedNameBytes = 128;

std::string TypeKey(ParamType type) {
  switch (type) {
    case ParamType::kString: return "type_string";
    case ParamType::kInteger: return "type_integer";
    case ParamType::kBoolean: return "type_boolean";
    case ParamType::kIntegerArray: return "type_integer_array";
  }
  return "type_string";
}

// An integer from a JSON number or a numeric string ("12", " 12 ", "12.0").
std::optional<long long> AsInteger(const json& v) {
  if (v.is_number_integer()) return v.get<long long>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e15) return static_cast<long long>(d);
    return std::nullopt;
  }
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    std::size_t b = s.find_first_not_of(" \t\n");
    std::size_t e = s.find_last_not_of(" \t\n");
    if (b == std::string::npos) return std::nullopt;
    s = s.substr(b, e - b + 1);
    char* end = nullptr;
    errno = 0;
    long long n = std::strtoll(s.c_str(), &end, 10);
    if (end && *end == '\0' && errno == 0) return n;
    double d = std::strtod(s.c_str(), &end);
    if (end && *end == '\0' && std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e15) {
      return static_cast<long long>(d);
    }
  }
  return std::nullopt;
}

std::optional<ArgValue> Convert(const json& v, const ParamSpec& p) {
  switch (p.type) {
    case ParamType::kString:
      if (v.is_string()) return ArgValue(v.get<std::string>());
      return std::nullopt;
    case ParamType::kInteger:
      if (auto n = AsInteger(v)) return ArgValue(*n);
      return std::nullopt;
    case ParamType::kBoolean:
      if (v.is_boolean()) return ArgValue(v.get<bool>());
      if (v.is_string() && (v == "true" || v == "false")) return ArgValue(v == "true");
      return std::nullopt;
    case ParamType::kIntegerArray: {
      json arr = v;
      if (v.is_string()) {  // "[1, 20]" sent as a string
        const std::string& inner = v.get<std::string>();
        if (!CheckJsonDepth(inner, "array", kMaxToolArgumentsDepth).ok()) return std::nullopt;
        arr = json::parse(inner, nullptr, false);
        if (arr.is_discarded()) return std::nullopt;
      }
      if (!arr.is_array()) return std::nullopt;
      std::vector<long long> out;
      for (const auto& item : arr) {
        auto n = AsInteger(item);
        if (!n) return std::nullopt;
        out.push_back(*n);
      }
      return ArgValue(std::move(out));
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ValidatedCall::String(std::string_view name) const {
  auto it = args.find(name);
  if (it == args.end() || !std::holds_alternative<std::string>(it->second)) return std::nullopt;
  return std::get<std::string>(it->second);
}

std::optional<long long> ValidatedCall::Integer(std::string_view name) const {
  auto it = args.find(name);
  if (it == args.end() || !std::holds_alternative<long long>(it->second)) return std::nullopt;
  return std::get<long long>(it->second);
}

std::optional<std::vector<long long>> ValidatedCall::IntegerList(std::string_view name) const {
  auto it = args.find(name);
  if (it == args.end() || !std::holds_alternative<std::vector<long long>>(it->second)) return std::nullopt;
  return std::get<std::vector<long long>>(it->second);
}

Result<ToolResources> LoadToolResources(const std::string& tools_yaml_path, const std::string& messages_yaml_path,
                                        std::string_view repo_dir) {
  SG_ASSIGN_OR_RETURN(ToolSpecs specs, LoadToolSpecs(tools_yaml_path, repo_dir));
  SG_ASSIGN_OR_RETURN(ToolMessages messages, ToolMessages::Load(messages_yaml_path));
  return ToolResources{std::move(specs), std::move(messages)};
}

namespace {
std::string NameOf(const ToolSpecs& specs, ToolRole role) {
  const ToolSpec* s = specs.FindByRole(role);
  return s ? s->name : std::string(ToolRoleName(role));
}
}  // namespace

ToolBox::ToolBox(const ToolResources* resources, sandbox::CommandRunner* runner, std::string host_copy,
                 PatchSource* patches, ToolOptions options, sandbox::CopyMeter* meter)
    : resources_(resources),
      max_copy_bytes_(options.max_copy_bytes),
      max_copy_entries_(options.max_copy_entries),
      own_meter_(meter ? nullptr : std::make_unique<sandbox::DirectoryCopyMeter>(host_copy)),
      meter_(meter ? meter : own_meter_.get()),
      editor_(WorkspacePaths(std::move(host_copy), runner->VisibleRoot()), &resources->messages, options),
      bash_(runner, &resources->messages, options, NameOf(resources->specs, ToolRole::kEditor)),
      submit_(patches, &resources->messages, options.submit_review, NameOf(resources->specs, ToolRole::kSubmit),
              options.submit_review_max_chars) {}

ToolBox::Validation ToolBox::Validate(std::string_view tool_name, std::string_view arguments_json) const {
  Validation v;
  const ToolMessages& m = resources_->messages;
  auto fail = [&](ValidationErrorKind kind, std::string argument, std::string_view key, const TemplateValues& values) {
    ValidationError e;
    e.kind = kind;
    e.tool = ClipEcho(tool_name, kMaxEchoedNameBytes);
    e.argument = std::move(argument);
    auto rendered = m.Render(key, values);
    e.message = rendered.ok() ? *rendered : rendered.status().message();
    v.error = std::move(e);
    return v;
  };
  // Names and keys come from the model: echo a bounded part of them.
  const std::string tool = ClipEcho(tool_name, kMaxEchoedNameBytes);
  const ToolSpec* spec = resources_->specs.FindByName(tool_name);
  if (!spec) {
    return fail(ValidationErrorKind::kUnknownTool, "", "error_unknown_tool",
                {{"tool", tool}, {"tools", resources_->specs.NameList()}});
  }
  json args;
  std::string_view text = arguments_json;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    args = json::object();  // no arguments at all
  } else {
    if (Status depth = CheckJsonDepth(text, "the arguments JSON", kMaxToolArgumentsDepth); !depth.ok()) {
      return fail(ValidationErrorKind::kInvalidJson, "", "error_invalid_json",
                  {{"tool", tool}, {"detail", depth.message()}});
    }
    try {
      args = json::parse(text);
    } catch (const json::parse_error& e) {
      return fail(ValidationErrorKind::kInvalidJson, "", "error_invalid_json",
                  {{"tool", tool}, {"detail", "parse error at byte " + std::to_string(e.byte)}});
    } catch (const json::exception&) {  // out_of_range.406: a number like 1e999 overflows a double
      return fail(ValidationErrorKind::kInvalidJson, "", "error_invalid_json",
                  {{"tool", tool}, {"detail", "a number is out of range"}});
    }
  }
  if (args.is_null()) args = json::object();
  if (!args.is_object()) return fail(ValidationErrorKind::kNotAnObject, "", "error_not_object", {{"tool", tool}});
  std::string allowed;
  for (const auto& p : spec->params) allowed += (allowed.empty() ? "" : ", ") + p.name;
  ValidatedCall call;
  call.spec = spec;
  for (const auto& [key, value] : args.items()) {
    const ParamSpec* p = spec->FindParam(key);
    if (!p) {
      std::string shown = ClipEcho(key, kMaxEchoedNameBytes);
      return fail(ValidationErrorKind::kUnexpectedArgument, shown, "error_unexpected_argument",
                  {{"tool", tool}, {"argument", shown}, {"allowed", allowed.empty() ? "-" : allowed}});
    }
    if (value.is_null()) continue;
    auto converted = Convert(value, *p);
    if (!converted) {
      auto expected = m.Render(TypeKey(p->type), {});
      return fail(ValidationErrorKind::kWrongType, key, "error_wrong_type",
                  {{"tool", tool}, {"argument", key}, {"expected", expected.ok() ? *expected : TypeKey(p->type)}});
    }
    if (!p->enum_values.empty()) {
      const std::string& s = std::get<std::string>(*converted);
      if (std::find(p->enum_values.begin(), p->enum_values.end(), s) == p->enum_values.end()) {
        std::string values;
        for (const auto& ev : p->enum_values) values += (values.empty() ? "" : ", ") + ev;
        return fail(ValidationErrorKind::kInvalidValue, key, "error_invalid_value",
                    {{"tool", tool}, {"argument", key}, {"allowed", values}});
      }
    }
    call.args.emplace(key, std::move(*converted));
  }
  for (const auto& p : spec->params) {
    if (p.required && !call.args.count(p.name)) {
      return fail(ValidationErrorKind::kMissingArgument, p.name, "error_missing_argument",
                  {{"tool", tool}, {"argument", p.name}});
    }
  }
  v.call = std::move(call);
  return v;
}

Status ToolBox::CheckCopySize(ToolOutcome* out) {
  if (max_copy_bytes_ == 0) return Status::Ok();
  SG_ASSIGN_OR_RETURN(sandbox::CopyUsage usage, meter_->Measure(max_copy_bytes_, max_copy_entries_));
  if (!usage.over) return Status::Ok();
  SG_ASSIGN_OR_RETURN(std::string note, resources_->messages.Render(
                                            "copy_too_large", {{"limit_mb", std::to_string(max_copy_bytes_ >> 20)},
                                                               {"max_entries", std::to_string(max_copy_entries_)}}));
  if (!out->observation.empty() && out->observation.back() != '\n') out->observation += '\n';
  out->observation += note;
  out->disk_limit = true;
  return Status::Ok();
}

Result<ToolOutcome> ToolBox::Execute(const ValidatedCall& call) {
  ToolOutcome out;
  out.role = call.spec->role;
  switch (call.spec->role) {
    case ToolRole::kBash: {
      SG_ASSIGN_OR_RETURN(BashOutcome b, bash_.Run(call.String("command").value_or("")));
      out.observation = std::move(b.observation);
      out.timed_out = b.timed_out;
      if (b.ran && !b.timed_out) out.exit_code = b.exit_code;
      out.stop_requested = b.stop_requested;
      if (b.ran) SG_RETURN_IF_ERROR(CheckCopySize(&out));
      return out;
    }
    case ToolRole::kEditor: {
      const std::string command = call.String("command").value_or("");
      const std::string path = call.String("path").value_or("");
      Result<std::string> r = std::string();
      if (command == "view") {
        r = editor_.View(path, call.IntegerList("view_range"));
      } else if (command == "create") {
        r = editor_.Create(path, call.String("file_text"));
      } else if (command == "str_replace") {
        r = editor_.StrReplace(path, call.String("old_str"), call.String("new_str"));
      } else if (command == "insert") {
        r = editor_.Insert(path, call.Integer("insert_line"), call.String("new_str"));
      } else if (command == "undo_edit") {
        r = editor_.UndoEdit(path);
      } else {
        return InternalError("editor command \"" + command +
                             "\" passed validation but is not implemented; "
                             "check the enum in the tools config");
      }
      if (!r.ok()) return r.status();
      out.observation = std::move(r).value();
      if (command != "view") SG_RETURN_IF_ERROR(CheckCopySize(&out));
      return out;
    }
    case ToolRole::kSubmit: {
      SG_ASSIGN_OR_RETURN(SubmitOutcome s, submit_.Submit());
      out.observation = std::move(s.observation);
      out.submitted = s.submitted;
      out.patch_too_large = s.patch_too_large;
      out.patch = std::move(s.patch);
      return out;
    }
  }
  return InternalError("unknown tool role");
}

Result<ToolCallResult> ToolBox::Call(std::string_view tool_name, std::string_view arguments_json) {
  ToolCallResult result;
  Validation v = Validate(tool_name, arguments_json);
  if (v.error) {
    result.validation_error = std::move(v.error);
    return result;
  }
  SG_ASSIGN_OR_RETURN(result.outcome, Execute(*v.call));
  const std::string& prefix = resources_->specs.observation_prefix;
  if (!prefix.empty()) result.outcome.observation.insert(0, prefix);
  return result;
}

}  // namespace seragen::tools
