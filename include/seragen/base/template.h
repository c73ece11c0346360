// Prompt templates: "{{name}}" placeholders filled from a map of values, and
// conditional sections.
//
// Unknown placeholders are an error (a typo in a prompt file must not reach a
// model silently), also inside sections that are left out; values are
// inserted verbatim (no escaping, no recursion). "{{{{" renders as a literal
// "{{".
//
// Sections: "{{#name}}...{{/name}}" keeps its text when the value of `name` is
// not empty, "{{^name}}...{{/name}}" when it is empty. Sections nest. A
// section tag alone on its line (only spaces or tabs around it) takes the
// whole line with it, so a template can put tags on lines of their own.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"

namespace seragen {

using TemplateValues = std::map<std::string, std::string, std::less<>>;

// Fails with kInvalidArgument naming the placeholder and `template_name`
// (a file path, for messages) when a placeholder has no value or is malformed,
// or a section is not closed or closed by another name.
Result<std::string> RenderTemplate(std::string_view text, const TemplateValues& values,
                                   std::string_view template_name = "template");

// Whether a name is set (true: its sections "{{#name}}" are kept), or
// std::nullopt when the name is unknown (an error).
using TemplateNameLookup = std::function<std::optional<bool>(std::string_view name)>;

// Resolves the sections of `text` only: the kept text, with every other
// placeholder (and "{{{{") left as it was. Every name in the text, inside
// left-out sections too, must be known to `lookup`. Used by RenderTemplate,
// and by the scripted teacher to get each form a rendered prompt can take.
Result<std::string> ResolveTemplateSections(std::string_view text, const TemplateNameLookup& lookup,
                                            std::string_view template_name = "template");

// The distinct placeholder and section names used in `text`, in order of
// first use.
std::vector<std::string> TemplatePlaceholders(std::string_view text);

// The distinct section names used in `text` ("{{#name}}" or "{{^name}}"), in
// order of first use.
std::vector<std::string> TemplateSectionNames(std::string_view text);

}  // namespace seragen
