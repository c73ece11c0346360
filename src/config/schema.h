// Internal: a declarative schema that binds YAML keys to members of the
// typed config structs. One table (schema_def.cc) drives parsing, validation,
// rendering, hashing and the generated reference docs.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "seragen/config/config.h"
#include "seragen/config/loader.h"

namespace seragen::config::internal {

struct ParseContext {
  std::vector<ConfigIssue>* issues;
  std::string file;                  // for "file:line:col"
  std::string file_dir;              // base for relative paths from the file
  std::string override_dir;          // base for relative paths from --set
  std::set<std::string> overridden;  // key paths set by --set
  EnvLookup env;                     // for ${VAR} in string values (empty = process environment)
  void Add(const std::string& path, const YAML::Node& node, std::string message) const;
};

// One row of the reference documentation.
struct DocRow {
  std::string key;
  std::string type;
  std::string default_value;
  std::string description;
};

enum class Flag : unsigned {
  kNone = 0,
  kRequired = 1,     // must be present in the file
  kOperational = 2,  // does not change generated data (excluded from recipe hash)
  kPath = 4,         // filesystem path: relative values are made absolute
};
inline Flag operator|(Flag a, Flag b) { return static_cast<Flag>(static_cast<unsigned>(a) | static_cast<unsigned>(b)); }
inline bool Has(Flag set, Flag f) { return (static_cast<unsigned>(set) & static_cast<unsigned>(f)) != 0; }

template <typename S>
class FieldOf {
 public:
  FieldOf(std::string key, std::string doc, Flag flags) : key_(std::move(key)), doc_(std::move(doc)), flags_(flags) {}
  virtual ~FieldOf() = default;
  const std::string& key() const { return key_; }
  Flag flags() const { return flags_; }
  // `node` is defined; the member keeps its default when parsing fails.
  virtual void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const = 0;
  // secrets: include ${VAR} references; recipe_only: skip operational fields.
  virtual nlohmann::ordered_json ToJson(const S& obj, bool secrets, bool recipe_only) const = 0;
  virtual void Document(const std::string& prefix, const S& defaults, std::vector<DocRow>& rows) const = 0;

 protected:
  std::string key_;
  std::string doc_;
  Flag flags_;
};

template <typename S>
class Section {
 public:
  template <typename F, typename... Args>
  F& Add(Args&&... args) {
    auto f = std::make_unique<F>(std::forward<Args>(args)...);
    F& ref = *f;
    fields_.push_back(std::move(f));
    return ref;
  }
  const std::vector<std::unique_ptr<FieldOf<S>>>& fields() const { return fields_; }

  void Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const;
  nlohmann::ordered_json ToJson(const S& obj, bool secrets, bool recipe_only) const {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& f : fields_) {
      if (recipe_only && Has(f->flags(), Flag::kOperational)) continue;
      nlohmann::ordered_json value = f->ToJson(obj, secrets, recipe_only);
      if (!value.is_discarded()) out[f->key()] = std::move(value);  // an absent optional section
    }
    return out;
  }
  void Document(const std::string& prefix, const S& defaults, std::vector<DocRow>& rows) const {
    for (const auto& f : fields_) f->Document(prefix, defaults, rows);
  }

 private:
  std::vector<std::unique_ptr<FieldOf<S>>> fields_;
};

// Suggestion for an unknown key ("did you mean ..."), empty if nothing is close.
std::string ClosestKey(const std::string& key, const std::vector<std::string>& known);
std::string JoinPath(const std::string& prefix, const std::string& key);
std::string Where(const ParseContext& ctx, const YAML::Node& node);
std::string ShowValue(const YAML::Node& node);

template <typename S>
void Section<S>::Parse(const YAML::Node& node, S& obj, const std::string& path, const ParseContext& ctx) const {
  if (!node.IsMap()) {
    ctx.Add(path.empty() ? "(top level)" : path, node, "expected a mapping of keys, got " + ShowValue(node));
    return;
  }
  std::vector<std::string> known;
  for (const auto& f : fields_) known.push_back(f->key());
  std::set<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string key = it->first.Scalar();
    // YAML parsers keep one of two equal keys and drop the other silently.
    if (!seen.insert(key).second) ctx.Add(JoinPath(path, key), it->first, "duplicate key (it is given twice)");
    bool found = false;
    for (const auto& f : fields_) found = found || f->key() == key;
    if (!found) {
      std::string msg = "unknown key";
      std::string guess = ClosestKey(key, known);
      if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
      ctx.Add(JoinPath(path, key), it->first, msg);
    }
  }
  for (const auto& f : fields_) {
    const YAML::Node child = node[f->key()];
    if (!child.IsDefined() || child.IsNull()) {
      if (Has(f->flags(), Flag::kRequired)) {
        ctx.Add(JoinPath(path, f->key()), node, "required key is missing");
      }
      continue;
    }
    f->Parse(child, obj, JoinPath(path, f->key()), ctx);
  }
}

// Parses YAML text named `name` (a file path, or a label such as "<string>")
// into *root. A syntax error is returned as an issue: path "(yaml)",
// "malformed YAML: ...", where "name:line:column". Never throws.
std::optional<ConfigIssue> ParseYamlText(const std::string& text, const std::string& name, YAML::Node* root);

}  // namespace seragen::config::internal
