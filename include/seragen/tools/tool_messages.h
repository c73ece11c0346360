// Every text the tools show the model (observations, notes, errors), loaded
// from prompts/tools/messages.yaml and rendered with {{name}} placeholders.
//
// Loading checks that every known key is present and that each template
// uses only the placeholders its key provides, so a typo fails at startup,
// not in the middle of a run.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/base/template.h"

namespace seragen::tools {

class ToolMessages {
 public:
  static Result<ToolMessages> Parse(std::string_view yaml_text, std::string_view source_name);
  static Result<ToolMessages> Load(const std::string& path);

  // Renders template `key`. kNotFound for an unknown key; kInvalidArgument
  // when a placeholder has no value (a bug in the caller).
  Result<std::string> Render(std::string_view key, const TemplateValues& values) const;

  // The raw template (empty when unknown).
  const std::string& Raw(std::string_view key) const;

 private:
  std::map<std::string, std::string, std::less<>> templates_;
  std::string source_;
};

}  // namespace seragen::tools
