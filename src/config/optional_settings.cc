#include "seragen/config/optional_settings.h"

#include "config/schema_fields.h"
#include "seragen/base/file_util.h"
#include "seragen/config/loader.h"

namespace seragen::config {

// The bound fields parse into the caller's optionals, not into a struct:
// the schema's object type is this empty one.
struct Unbound {};

struct OptionalSettings::Impl {
  internal::Section<Unbound> section;
};

namespace {

using internal::FieldOf;
using internal::ParseContext;

// A scalar parsed and checked like the run configuration's ScalarField,
// stored into *out only when the key is present and valid.
template <typename T>
class BoundField : public FieldOf<Unbound> {
  struct Holder {
    T value{};
  };

 public:
  BoundField(const std::string& key, std::optional<T>* out)
      : FieldOf<Unbound>(key, "", internal::Flag::kNone), out_(out), inner_(key, &Holder::value, "") {}
  internal::ScalarField<Holder, T>& inner() { return inner_; }

  void Parse(const YAML::Node& node, Unbound&, const std::string& path, const ParseContext& ctx) const override {
    Holder h;
    const std::size_t before = ctx.issues->size();
    inner_.Parse(node, h, path, ctx);
    if (ctx.issues->size() == before) *out_ = std::move(h.value);
  }
  nlohmann::ordered_json ToJson(const Unbound&, bool, bool) const override {
    return *out_ ? internal::TypeTraits<T>::Json(**out_) : nlohmann::ordered_json();
  }
  void Document(const std::string& prefix, const Unbound&, std::vector<internal::DocRow>& rows) const override {
    std::vector<internal::DocRow> inner;
    inner_.Document(prefix, Holder{}, inner);
    for (auto& row : inner) row.default_value = "(built in)";
    rows.insert(rows.end(), inner.begin(), inner.end());
  }

 private:
  std::optional<T>* out_;
  internal::ScalarField<Holder, T> inner_;
};

// A nested table: its own keys under `key`.
class NestedField : public FieldOf<Unbound> {
 public:
  NestedField(const std::string& key, const OptionalSettings::Impl* table)
      : FieldOf<Unbound>(key, "", internal::Flag::kNone), table_(table) {}
  void Parse(const YAML::Node& node, Unbound& obj, const std::string& path, const ParseContext& ctx) const override {
    table_->section.Parse(node, obj, path, ctx);
  }
  nlohmann::ordered_json ToJson(const Unbound& obj, bool secrets, bool recipe_only) const override {
    return table_->section.ToJson(obj, secrets, recipe_only);
  }
  void Document(const std::string& prefix, const Unbound& obj, std::vector<internal::DocRow>& rows) const override {
    table_->section.Document(internal::JoinPath(prefix, key_), obj, rows);
  }

 private:
  const OptionalSettings::Impl* table_;
};

Status Fail(const std::vector<ConfigIssue>& issues) { return InvalidArgumentError(FormatIssues(issues)); }

}  // namespace

OptionalSettings::OptionalSettings() : impl_(std::make_unique<Impl>()) {}
OptionalSettings::~OptionalSettings() = default;

void OptionalSettings::Text(const std::string& key, std::optional<std::string>* out, std::vector<std::string> choices) {
  auto& field = impl_->section.Add<BoundField<std::string>>(key, out);
  if (!choices.empty()) field.inner().OneOf(std::move(choices));
}

void OptionalSettings::Integer(const std::string& key, std::optional<std::int64_t>* out, std::int64_t min,
                               std::int64_t max) {
  impl_->section.Add<BoundField<std::int64_t>>(key, out).inner().Min(min).Max(max);
}

void OptionalSettings::Number(const std::string& key, std::optional<double>* out, double min, double max) {
  impl_->section.Add<BoundField<double>>(key, out).inner().Min(min).Max(max);
}

OptionalSettings& OptionalSettings::Section(const std::string& key) {
  children_.push_back(std::make_unique<OptionalSettings>());
  impl_->section.Add<NestedField>(key, children_.back()->impl_.get());
  return *children_.back();
}

Status OptionalSettings::Load(const std::string& yaml_text, const std::string& name) const {
  YAML::Node root;
  if (std::optional<ConfigIssue> syntax = internal::ParseYamlText(yaml_text, name, &root)) return Fail({*syntax});
  if (!root.IsDefined() || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  std::vector<ConfigIssue> issues;
  ParseContext ctx{&issues, name, ".", ".", {}, {}};
  Unbound unbound;
  impl_->section.Parse(root, unbound, "", ctx);
  if (!issues.empty()) return Fail(issues);
  return Status::Ok();
}

Status OptionalSettings::LoadFile(const std::string& path, const std::string& what) const {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return Fail({{"(file)", "cannot read " + what + ": " + text.status().message(), path}});
  return Load(*text, path);
}

}  // namespace seragen::config
