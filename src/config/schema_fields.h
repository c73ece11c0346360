// Internal: field kinds for the config schema (see schema.h).
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>

#include "config/schema.h"

namespace seragen::config::internal {

// Returns "" when valid, else the problem (without the key path).
template <typename T>
using Validator = std::function<std::string(const T&)>;

std::optional<std::int64_t> ParseInt(const std::string& text);
std::optional<double> ParseDouble(const std::string& text);
std::optional<bool> ParseBool(const std::string& text);
std::string FormatDouble(double v);
nlohmann::ordered_json YamlToJson(const YAML::Node& node);
std::string MakeAbsolute(const std::string& value, const std::string& base);
bool IsEnvReference(const std::string& text, std::string* var_name);
// Expands ${VAR} / ${VAR:-default} in *text (config/interpolate.h); on failure
// reports the problem at `path` and returns false.
bool Expand(const std::string& path, const YAML::Node& node, const ParseContext& ctx, std::string* text);

template <typename T>
struct TypeTraits;

template <>
struct TypeTraits<std::string> {
  static constexpr const char* kName = "string";
  static std::optional<std::string> From(const std::string& s) { return s; }
  static nlohmann::ordered_json Json(const std::string& v) { return v; }
  static std::string Show(const std::string& v) { return v.empty() ? "\"\"" : "\"" + v + "\""; }
};
template <>
struct TypeTraits<std::int64_t> {
  static constexpr const char* kName = "integer";
  static std::optional<std::int64_t> From(const std::string& s) { return ParseInt(s); }
  static nlohmann::ordered_json Json(std::int64_t v) { return v; }
  static std::string Show(std::int64_t v) { return std::to_string(v); }
};
template <>
struct TypeTraits<double> {
  static constexpr const char* kName = "number";
  static std::optional<double> From(const std::string& s) { return ParseDouble(s); }
  static nlohmann::ordered_json Json(double v) { return v; }
  static std::string Show(double v) { return FormatDouble(v); }
};
// Durations: a number of seconds in YAML and in the saved JSON (so configs
// and their hashes read as before), milliseconds in memory. Values whose
// milliseconds do not fit comfortably in 64 bits are refused as not a number.
template <>
struct TypeTraits<Duration> {
  static constexpr const char* kName = "seconds";
  static std::optional<Duration> From(const std::string& s) {
    std::optional<double> seconds = ParseDouble(s);
    if (!seconds || std::fabs(*seconds) > 1e12) return std::nullopt;
    return Duration(std::llround(*seconds * 1000));
  }
  static double Seconds(Duration v) { return static_cast<double>(v.count()) / 1000.0; }
  static nlohmann::ordered_json Json(Duration v) { return Seconds(v); }
  static std::string Show(Duration v) { return FormatDouble(Seconds(v)); }
};
template <>
struct TypeTraits<bool> {
  static constexpr const char* kName = "boolean";
  static std::optional<bool> From(const std::string& s) { return ParseBool(s); }
  static nlohmann::ordered_json Json(bool v) { return v; }
  static std::string Show(bool v) { return v ? "true" : "false"; }
};

// A scalar: string, integer, number or boolean, with optional constraints.
template <typename S, typename T>
class ScalarField : public FieldOf<S> {
 public:
  ScalarField(std::string key, T S::*member, std::string doc, Flag flags = Flag::kNone)
      : FieldOf<S>(std::move(key), std::move(doc), flags), member_(member) {}

  ScalarField& Min(T v) {
    min_ = v;
    return *this;
  }
  ScalarField& Max(T v) {
    max_ = v;
    return *this;
  }
  ScalarField& OneOf(std::vector<std::string> choices) {
    choices_ = std::move(choices);
    return *this;
  }
  ScalarField& Check(Validator<T> v, std::string doc) {
    validator_ = std::move(v);
    check_doc_ = std::move(doc);
    return *this;
  }

  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const override {
    if (!node.IsScalar()) {
      ctx.Add(path, node, std::string("expected ") + Expected() + ", got " + ShowValue(node));
      return;
    }
    std::string text = node.Scalar();
    if constexpr (std::is_same_v<T, std::string>) {
      if (!Expand(path, node, ctx, &text)) return;
    }
    std::optional<T> value = TypeTraits<T>::From(text);
    if (!value) {
      ctx.Add(path, node, std::string("expected ") + Expected() + ", got " + ShowValue(node));
      return;
    }
    if constexpr (std::is_same_v<T, std::string>) {
      if (!choices_.empty() && std::find(choices_.begin(), choices_.end(), *value) == choices_.end()) {
        std::string msg = "expected one of " + ChoiceList() + ", got " + ShowValue(node);
        std::string guess = ClosestKey(*value, choices_);
        if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
        ctx.Add(path, node, msg);
        return;
      }
      if (Has(this->flags(), Flag::kPath) && !value->empty()) {
        bool from_set = ctx.overridden.count(path) > 0;
        *value = MakeAbsolute(*value, from_set ? ctx.override_dir : ctx.file_dir);
      }
    } else {
      if (min_ && *value < *min_) {
        ctx.Add(path, node, std::string("must be >= ") + TypeTraits<T>::Show(*min_) + ", got " + ShowValue(node));
        return;
      }
      if (max_ && *value > *max_) {
        ctx.Add(path, node, std::string("must be <= ") + TypeTraits<T>::Show(*max_) + ", got " + ShowValue(node));
        return;
      }
    }
    if (validator_) {
      std::string problem = validator_(*value);
      if (!problem.empty()) {
        ctx.Add(path, node, problem + ", got " + ShowValue(node));
        return;
      }
    }
    obj.*member_ = std::move(*value);
  }

  nlohmann::ordered_json ToJson(const S& obj, bool, bool) const override { return TypeTraits<T>::Json(obj.*member_); }

  void Document(const std::string& prefix, const S& defaults, std::vector<DocRow>& rows) const override {
    std::string type = TypeTraits<T>::kName;
    if (!choices_.empty()) type = ChoiceList();
    if constexpr (!std::is_same_v<T, std::string>) {
      if (min_ && max_) type += " in [" + TypeTraits<T>::Show(*min_) + ", " + TypeTraits<T>::Show(*max_) + "]";
      else if (min_) type += " >= " + TypeTraits<T>::Show(*min_);
    }
    std::string doc = this->doc_;
    if (!check_doc_.empty()) doc += " " + check_doc_;
    if (Has(this->flags(), Flag::kRequired)) doc = "**Required.** " + doc;
    rows.push_back({JoinPath(prefix, this->key_), type, TypeTraits<T>::Show(defaults.*member_), doc});
  }

 private:
  const char* Expected() const {
    if constexpr (std::is_same_v<T, std::int64_t>) return "an integer";
    if constexpr (std::is_same_v<T, double>) return "a number";
    if constexpr (std::is_same_v<T, Duration>) return "a number of seconds";
    if constexpr (std::is_same_v<T, bool>) return "true or false";
    return "a string";
  }
  std::string ChoiceList() const {
    std::string s;
    for (std::size_t i = 0; i < choices_.size(); ++i) s += (i ? " | " : "") + choices_[i];
    return s;
  }

  T S::*member_;
  std::optional<T> min_, max_;
  std::vector<std::string> choices_;
  Validator<T> validator_;
  std::string check_doc_;
};

// A list of strings (each element a scalar).
template <typename S>
class StringListField : public FieldOf<S> {
 public:
  StringListField(std::string key, std::vector<std::string> S::*member, std::string doc, Flag flags = Flag::kNone)
      : FieldOf<S>(std::move(key), std::move(doc), flags), member_(member) {}
  StringListField& OneOf(std::vector<std::string> choices) {
    choices_ = std::move(choices);
    return *this;
  }
  StringListField& NonEmpty() {
    non_empty_ = true;
    return *this;
  }
  // Each item must pass `check` (returns "" or the reason it is refused).
  StringListField& Check(std::function<std::string(const std::string&)> check) {
    check_ = std::move(check);
    return *this;
  }

  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const override {
    if (!node.IsSequence()) {
      ctx.Add(path, node, "expected a list of strings, got " + ShowValue(node));
      return;
    }
    std::vector<std::string> out;
    bool ok = true;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node item = node[i];
      std::string item_path = path + "." + std::to_string(i);
      if (!item.IsScalar()) {
        ctx.Add(item_path, item, "expected a string, got " + ShowValue(item));
        ok = false;
        continue;
      }
      std::string text = item.Scalar();
      if (!Expand(item_path, item, ctx, &text)) {
        ok = false;
        continue;
      }
      if (!choices_.empty() && std::find(choices_.begin(), choices_.end(), text) == choices_.end()) {
        std::string msg = "unknown value " + ShowValue(item) + "; expected one of ";
        for (std::size_t c = 0; c < choices_.size(); ++c) msg += (c ? ", " : "") + choices_[c];
        std::string guess = ClosestKey(text, choices_);
        if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
        ctx.Add(item_path, item, msg);
        ok = false;
        continue;
      }
      if (check_) {
        if (std::string why = check_(text); !why.empty()) {
          ctx.Add(item_path, item, why);
          ok = false;
          continue;
        }
      }
      out.push_back(std::move(text));
    }
    if (ok && non_empty_ && out.empty()) {
      ctx.Add(path, node, "must not be empty");
      ok = false;
    }
    if (ok) obj.*member_ = std::move(out);
  }
  nlohmann::ordered_json ToJson(const S& obj, bool, bool) const override {
    return nlohmann::ordered_json(obj.*member_);
  }
  void Document(const std::string& prefix, const S& defaults, std::vector<DocRow>& rows) const override {
    std::string shown = "[";
    const auto& v = defaults.*member_;
    for (std::size_t i = 0; i < v.size(); ++i) shown += (i ? ", " : "") + v[i];
    shown += "]";
    std::string type = "list of strings";
    if (!choices_.empty()) {
      type = "list of: ";
      for (std::size_t c = 0; c < choices_.size(); ++c) type += (c ? ", " : "") + choices_[c];
    }
    rows.push_back({JoinPath(prefix, this->key_), type, shown, this->doc_});
  }

 private:
  std::vector<std::string> S::*member_;
  std::vector<std::string> choices_;
  bool non_empty_ = false;
  std::function<std::string(const std::string&)> check_;
};

// A secret: only `${ENV_VAR}` is accepted; stored as the variable name.
template <typename S>
class SecretField : public FieldOf<S> {
 public:
  SecretField(std::string key, SecretRef S::*member, std::string doc)
      : FieldOf<S>(std::move(key), std::move(doc), Flag::kOperational), member_(member) {}
  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const override {
    std::string var;
    if (node.IsScalar() && node.Scalar().empty()) {
      (obj.*member_).env_var.clear();  // explicitly no secret
      return;
    }
    if (!node.IsScalar() || !IsEnvReference(node.Scalar(), &var)) {
      // Never echo the value: it may be a pasted key.
      ctx.Add(path, node,
              "expected a reference to an environment variable such as ${OPENAI_API_KEY}; "
              "literal secrets are refused so they never reach saved configs or logs");
      return;
    }
    (obj.*member_).env_var = var;
  }
  nlohmann::ordered_json ToJson(const S& obj, bool secrets, bool) const override {
    const SecretRef& ref = obj.*member_;
    if (!secrets || ref.empty()) return "";
    return "${" + ref.env_var + "}";
  }
  void Document(const std::string& prefix, const S&, std::vector<DocRow>& rows) const override {
    rows.push_back({JoinPath(prefix, this->key_), "secret reference `${VAR}`", "\"\"", this->doc_});
  }

 private:
  SecretRef S::*member_;
};

// Extra HTTP headers: a mapping of header name to value. Values are secrets
// whether literal or ${VAR}: saved configs keep ${VAR} references (when
// secrets are included) and never a literal value.
template <typename S>
class HeaderMapField : public FieldOf<S> {
 public:
  HeaderMapField(std::string key, std::vector<HeaderConfig> S::*member, std::string doc)
      : FieldOf<S>(std::move(key), std::move(doc), Flag::kOperational), member_(member) {}
  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const override {
    if (!node.IsMap()) {
      ctx.Add(path, node, "expected a mapping of header name to value");
      return;
    }
    if (node.size() > 64) {
      ctx.Add(path, node, "at most 64 headers");
      return;
    }
    std::vector<HeaderConfig> out;
    bool ok = true;
    for (const auto& kv : node) {
      const std::string name = kv.first.IsScalar() ? kv.first.Scalar() : "";
      const std::string item = path + "." + name;
      bool name_ok = !name.empty() && name.size() <= 128 && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
      });
      if (!name_ok) {
        ctx.Add(path, kv.first, "header names use letters, digits, '-' and '_'");
        ok = false;
        continue;
      }
      if (!kv.second.IsScalar()) {  // never echo the value: it may be a secret
        ctx.Add(item, kv.second, "expected a string value (a literal or ${VAR})");
        ok = false;
        continue;
      }
      out.push_back({name, kv.second.Scalar()});
    }
    if (ok) obj.*member_ = std::move(out);
  }
  nlohmann::ordered_json ToJson(const S& obj, bool secrets, bool) const override {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const HeaderConfig& h : obj.*member_) {
      std::string var;
      out[h.name] = secrets && IsEnvReference(h.value, &var) ? "${" + var + "}" : std::string("<not saved>");
    }
    return out;
  }
  void Document(const std::string& prefix, const S&, std::vector<DocRow>& rows) const override {
    rows.push_back({JoinPath(prefix, this->key_), "mapping of name to literal or `${VAR}`", "{}", this->doc_});
  }

 private:
  std::vector<HeaderConfig> S::*member_;
};

// A mapping of variable name to string value (environment variables).
template <typename S>
class StringMapField : public FieldOf<S> {
 public:
  StringMapField(std::string key, std::map<std::string, std::string> S::*member, std::string doc)
      : FieldOf<S>(std::move(key), std::move(doc), Flag::kNone), member_(member) {}
  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const override {
    if (!node.IsMap() || node.size() > 256) {
      ctx.Add(path, node, "expected a mapping of at most 256 variable names to values");
      return;
    }
    std::map<std::string, std::string> out;
    bool ok = true;
    for (const auto& kv : node) {
      const std::string name = kv.first.IsScalar() ? kv.first.Scalar() : "";
      const bool name_ok = !name.empty() && name.size() <= 128 && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                           std::all_of(name.begin(), name.end(),
                                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
      if (!name_ok) {
        ctx.Add(path, kv.first, "variable names use letters, digits and '_' and do not start with a digit");
        ok = false;
      } else if (!kv.second.IsScalar()) {
        ctx.Add(path + "." + name, kv.second, "expected a string value");
        ok = false;
      } else {
        out[name] = kv.second.Scalar();
      }
    }
    if (ok) obj.*member_ = std::move(out);
  }
  nlohmann::ordered_json ToJson(const S& obj, bool, bool) const override {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [k, v] : obj.*member_) out[k] = v;
    return out;
  }
  void Document(const std::string& prefix, const S&, std::vector<DocRow>& rows) const override {
    rows.push_back({JoinPath(prefix, this->key_), "mapping of name to string", "{}", this->doc_});
  }

 private:
  std::map<std::string, std::string> S::*member_;
};

// A free-form JSON object (written as a YAML mapping), stored as JSON text.
template <typename S>
class JsonObjectField : public FieldOf<S> {
 public:
  JsonObjectField(std::string key, std::string S::*member, std::string doc)
      : FieldOf<S>(std::move(key), std::move(doc), Flag::kNone), member_(member) {}
  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const override {
    if (!node.IsMap()) {
      ctx.Add(path, node, "expected a mapping (sent as a JSON object), got " + ShowValue(node));
      return;
    }
    obj.*member_ = YamlToJson(node).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  nlohmann::ordered_json ToJson(const S& obj, bool, bool) const override {
    return nlohmann::ordered_json::parse(obj.*member_);
  }
  void Document(const std::string& prefix, const S& defaults, std::vector<DocRow>& rows) const override {
    rows.push_back({JoinPath(prefix, this->key_), "mapping", defaults.*member_, this->doc_});
  }

 private:
  std::string S::*member_;
};

// A nested section.
template <typename S, typename Sub>
class SectionField : public FieldOf<S> {
 public:
  SectionField(std::string key, Sub S::*member, std::string doc, Section<Sub> section, Flag flags = Flag::kNone)
      : FieldOf<S>(std::move(key), std::move(doc), flags), member_(member), section_(std::move(section)) {}
  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const override {
    section_.Parse(node, obj.*member_, path, ctx);
  }
  nlohmann::ordered_json ToJson(const S& obj, bool secrets, bool recipe_only) const override {
    return section_.ToJson(obj.*member_, secrets, recipe_only);
  }
  void Document(const std::string& prefix, const S& defaults, std::vector<DocRow>& rows) const override {
    rows.push_back({JoinPath(prefix, this->key_), "section", "", this->doc_});
    section_.Document(JoinPath(prefix, this->key_), defaults.*member_, rows);
  }

 private:
  Sub S::*member_;
  Section<Sub> section_;
};

// A nested section that may be absent (std::nullopt): rendered only when
// present, so adding one leaves the hashes of configs without it unchanged.
// Documented as one row: its keys are those of `keys_like`.
template <typename S, typename Sub>
class OptionalSectionField : public FieldOf<S> {
 public:
  OptionalSectionField(std::string key, std::optional<Sub> S::*member, std::string doc, Section<Sub> section,
                       std::string keys_like, Flag flags = Flag::kNone)
      : FieldOf<S>(std::move(key), std::move(doc), flags),
        member_(member),
        section_(std::move(section)),
        keys_like_(std::move(keys_like)) {}
  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const override {
    Sub value{};
    section_.Parse(node, value, path, ctx);
    obj.*member_ = std::move(value);
  }
  nlohmann::ordered_json ToJson(const S& obj, bool secrets, bool recipe_only) const override {
    if (!(obj.*member_)) return nlohmann::ordered_json(nlohmann::ordered_json::value_t::discarded);
    return section_.ToJson(*(obj.*member_), secrets, recipe_only);
  }
  void Document(const std::string& prefix, const S&, std::vector<DocRow>& rows) const override {
    rows.push_back(
        {JoinPath(prefix, this->key_), "section (optional)", "", this->doc_ + " Keys: those of " + keys_like_ + "."});
  }

 private:
  std::optional<Sub> S::*member_;
  Section<Sub> section_;
  std::string keys_like_;
};

// A list of sections ("repos", "llm.endpoints").
template <typename S, typename Sub>
class ListField : public FieldOf<S> {
 public:
  ListField(std::string key, std::vector<Sub> S::*member, std::string doc, Section<Sub> section,
            Flag flags = Flag::kNone, std::size_t min_items = 0)
      : FieldOf<S>(std::move(key), std::move(doc), flags),
        member_(member),
        section_(std::move(section)),
        min_items_(min_items) {}
  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const override {
    if (!node.IsSequence()) {
      ctx.Add(path, node, "expected a list of mappings, got " + ShowValue(node));
      return;
    }
    if (node.size() < min_items_) {
      ctx.Add(path, node, "needs at least " + std::to_string(min_items_) + " entr" + (min_items_ == 1 ? "y" : "ies"));
    }
    std::vector<Sub> out(node.size());
    for (std::size_t i = 0; i < node.size(); ++i) {
      section_.Parse(node[i], out[i], path + "." + std::to_string(i), ctx);
    }
    obj.*member_ = std::move(out);
  }
  nlohmann::ordered_json ToJson(const S& obj, bool secrets, bool recipe_only) const override {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const Sub& item : obj.*member_) arr.push_back(section_.ToJson(item, secrets, recipe_only));
    return arr;
  }
  void Document(const std::string& prefix, const S&, std::vector<DocRow>& rows) const override {
    std::string doc = this->doc_;
    if (Has(this->flags(), Flag::kRequired)) doc = "**Required.** " + doc;
    rows.push_back({JoinPath(prefix, this->key_), "list of sections", "[]", doc});
    Sub defaults{};
    section_.Document(JoinPath(prefix, this->key_) + "[]", defaults, rows);
  }

 private:
  std::vector<Sub> S::*member_;
  Section<Sub> section_;
  std::size_t min_items_;
};

}  // namespace seragen::config::internal
