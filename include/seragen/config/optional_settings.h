// A settings file of optional keys for a tool other than the run
// configuration (the scripted teacher reads its own this way). The caller
// binds each key to a std::optional it owns; loading stores a value only for
// a key present in the file and valid, so an absent key leaves the tool's
// built-in default in place. Parsing and error messages are the run
// configuration's: every problem as "file:line:col: key.path: message"
// (unknown keys with a suggestion, duplicate keys, wrong types, values
// outside their range or choices, ${VAR} in strings), all listed at once.
// Not copyable (it owns its nested tables).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "seragen/base/status.h"

namespace seragen::config {

class OptionalSettings {
 public:
  OptionalSettings();
  ~OptionalSettings();

  // Binds `key` of this level; `out` must outlive Load. `choices`, when not
  // empty, are the only values accepted.
  void Text(const std::string& key, std::optional<std::string>* out, std::vector<std::string> choices = {});
  void Integer(const std::string& key, std::optional<std::int64_t>* out, std::int64_t min, std::int64_t max);
  void Number(const std::string& key, std::optional<double>* out, double min, double max);
  // A nested mapping under `key`; bind its keys on the returned table (owned
  // by this one).
  OptionalSettings& Section(const std::string& key);

  // Parses `yaml_text` (`name` stands for the file in messages). An empty
  // document is an empty mapping. On failure: kInvalidArgument listing every
  // problem; bound values that were valid may already be stored.
  Status Load(const std::string& yaml_text, const std::string& name) const;
  // Same for a file; an unreadable one is "PATH: (file): cannot read WHAT: ...".
  Status LoadFile(const std::string& path, const std::string& what) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  std::vector<std::unique_ptr<OptionalSettings>> children_;
};

}  // namespace seragen::config
