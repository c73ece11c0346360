#include "seragen/config/teacher_settings.h"

#include <climits>
#include <filesystem>

#include "config/schema_fields.h"
#include "seragen/base/file_util.h"
#include "seragen/config/loader.h"

namespace seragen::config {
namespace {

using internal::FieldOf;
using internal::Flag;
using internal::ParseContext;
using internal::ScalarField;
using internal::Section;
using internal::SectionField;
using internal::TypeTraits;

// A scalar that may be absent: parsed and checked like ScalarField, stored
// only when the key is present and valid.
template <typename S, typename T>
class OptionalField : public FieldOf<S> {
  struct Holder {
    T value{};
  };

 public:
  OptionalField(std::string key, std::optional<T> S::*member, std::string doc)
      : FieldOf<S>(key, doc, Flag::kNone), member_(member), inner_(key, &Holder::value, doc) {}
  OptionalField& Min(T v) {
    inner_.Min(v);
    return *this;
  }
  OptionalField& Max(T v) {
    inner_.Max(v);
    return *this;
  }
  OptionalField& OneOf(std::vector<std::string> choices) {
    inner_.OneOf(std::move(choices));
    return *this;
  }

  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const override {
    Holder h;
    const std::size_t before = ctx.issues->size();
    inner_.Parse(node, h, path, ctx);
    if (ctx.issues->size() == before) obj.*member_ = std::move(h.value);
  }
  nlohmann::ordered_json ToJson(const S& obj, bool, bool) const override {
    const std::optional<T>& v = obj.*member_;
    return v ? TypeTraits<T>::Json(*v) : nlohmann::ordered_json();
  }
  void Document(const std::string& prefix, const S&, std::vector<internal::DocRow>& rows) const override {
    std::vector<internal::DocRow> inner;
    inner_.Document(prefix, Holder{}, inner);
    for (auto& row : inner) row.default_value = "(built in)";
    rows.insert(rows.end(), inner.begin(), inner.end());
  }

 private:
  std::optional<T> S::*member_;
  ScalarField<Holder, T> inner_;
};

template <typename S>
using OptStr = OptionalField<S, std::string>;
template <typename S>
using OptInt = OptionalField<S, std::int64_t>;
template <typename S>
using OptNum = OptionalField<S, double>;

Section<TeacherPolicySettings> PolicySchema() {
  using P = TeacherPolicySettings;
  Section<P> s;
  s.Add<OptStr<P>>("reasoning", &P::reasoning, "Where reasoning text goes.")
      .OneOf({"none", "reasoning", "reasoning_content", "think"});
  s.Add<OptNum<P>>("raw_markup_rate", &P::raw_markup_rate, "Tool calls left as markup in content.").Min(0).Max(1);
  s.Add<OptStr<P>>("raw_markup_style", &P::raw_markup_style, "Markup of those calls.")
      .OneOf({"hermes", "qwen_xml", "glm"});
  s.Add<OptNum<P>>("invalid_json_rate", &P::invalid_json_rate, "Arguments that are not JSON.").Min(0).Max(1);
  s.Add<OptNum<P>>("multi_call_rate", &P::multi_call_rate, "Two calls in one turn.").Min(0).Max(1);
  s.Add<OptNum<P>>("check_command_rate", &P::check_command_rate, "A check command before submit.").Min(0).Max(1);
  s.Add<OptNum<P>>("rollout2_same_edit_rate", &P::rollout2_same_edit_rate, "Rollout 2 repeats the edit.").Min(0).Max(1);
  s.Add<OptNum<P>>("judge_yes_rate", &P::judge_yes_rate, "Judge answers yes.").Min(0).Max(1);
  s.Add<OptInt<P>>("stream_piece_bytes", &P::stream_piece_bytes, "Bytes per streamed piece.").Min(1).Max(INT_MAX);
  return s;
}

Section<TeacherToolSettings> ToolsSchema() {
  using T = TeacherToolSettings;
  Section<T> s;
  s.Add<OptStr<T>>("shell", &T::shell, "Name of the shell tool.");
  s.Add<OptStr<T>>("editor", &T::editor, "Name of the file editor tool.");
  s.Add<OptStr<T>>("submit", &T::submit, "Name of the submit tool.");
  return s;
}

const Section<TeacherSettings>& TeacherSchema() {
  static const Section<TeacherSettings> schema = [] {
    using S = TeacherSettings;
    Section<S> s;
    s.Add<OptStr<S>>("bind_address", &S::bind_address, "Address to listen on.");
    s.Add<OptInt<S>>("port", &S::port, "TCP port (0: ephemeral).").Min(0).Max(65535);
    s.Add<OptInt<S>>("threads", &S::threads, "Server threads.").Min(1).Max(64);
    s.Add<OptInt<S>>("listen_backlog", &S::listen_backlog, "Listen backlog.").Min(1).Max(INT_MAX);
    s.Add<OptInt<S>>("seed", &S::seed, "Policy seed.").Min(0);
    s.Add<OptStr<S>>("model_id", &S::model_id, "Model id served.");
    s.Add<OptInt<S>>("context_window", &S::context_window, "Tokens.").Min(16).Max(INT_MAX);
    s.Add<OptInt<S>>("prefix_cache_blocks", &S::prefix_cache_blocks,
                     "16-token blocks kept by the simulated prefix cache (0: off).")
        .Min(0)
        .Max(std::int64_t{1} << 24);
    s.Add<OptStr<S>>("request_log", &S::request_log, "JSONL digest of every request.");
    s.Add<OptStr<S>>("issue_tag", &S::issue_tag, "Issue answer tag.");
    s.Add<OptStr<S>>("judge_tag", &S::judge_tag, "Judge answer tag.");
    s.Add<OptStr<S>>("latency", &S::latency, "Latency spec.");
    s.Add<OptStr<S>>("faults", &S::faults, "Fault spec.");
    s.Add<SectionField<S, TeacherToolSettings>>("tools", &S::tools, "Tool names by role.", ToolsSchema());
    s.Add<SectionField<S, TeacherPolicySettings>>("policy", &S::policy, "Policy knobs.", PolicySchema());
    return s;
  }();
  return schema;
}

Result<TeacherSettings> Fail(std::vector<ConfigIssue> issues) { return InvalidArgumentError(FormatIssues(issues)); }

}  // namespace

Result<TeacherSettings> LoadTeacherSettingsText(const std::string& yaml_text, const std::string& name) {
  YAML::Node root;
  if (std::optional<ConfigIssue> syntax = internal::ParseYamlText(yaml_text, name, &root)) return Fail({*syntax});
  if (!root.IsDefined() || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  std::vector<ConfigIssue> issues;
  ParseContext ctx{&issues, name, ".", ".", {}};
  TeacherSettings settings;
  TeacherSchema().Parse(root, settings, "", ctx);
  if (!issues.empty()) return Fail(std::move(issues));
  return settings;
}

Result<TeacherSettings> LoadTeacherSettingsFile(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return Fail({{"(file)", "cannot read teacher settings: " + text.status().message(), path}});
  return LoadTeacherSettingsText(*text, path);
}

}  // namespace seragen::config
