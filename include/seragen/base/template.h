// Prompt templates: "{{name}}" placeholders filled from a map of values.
//
// Unknown placeholders are an error (a typo in a prompt file must not reach a
// model silently); values are inserted verbatim (no escaping, no recursion).
// "{{{{" renders as a literal "{{".
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"

namespace seragen {

using TemplateValues = std::map<std::string, std::string, std::less<>>;

// Fails with kInvalidArgument naming the placeholder and `template_name`
// (a file path, for messages) when a placeholder has no value or is malformed.
Result<std::string> RenderTemplate(std::string_view text, const TemplateValues& values,
                                   std::string_view template_name = "template");

// The distinct placeholder names used in `text`, in order of first use.
std::vector<std::string> TemplatePlaceholders(std::string_view text);

}  // namespace seragen
