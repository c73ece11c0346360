// JSON helpers shared by the record layouts of this module (internal).
// Pure functions; thread-safe. Inputs are our own stored JSON (tool schemas,
// tool-call arguments), still parsed behind the depth bound and without
// throwing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "seragen/base/result.h"
#include "seragen/llm/types.h"

namespace seragen::exporter::internal {

// Parses a JSON object; `what` names it in the error (kFailedPrecondition).
Result<nlohmann::ordered_json> ParseObject(const std::string& text, const std::string& what);

// A tool call's arguments as a JSON object.
Result<nlohmann::ordered_json> Arguments(const llm::ToolCall& call);

// JSON text the way chat templates' `tojson` writes it (Python's json.dumps
// with ensure_ascii off): ", " between items and ": " after keys, key order
// kept. With `ascii`, Python's default json.dumps instead: every character
// outside printable ASCII escaped as \uXXXX. Total: invalid UTF-8 becomes
// U+FFFD.
std::string TemplateJson(const nlohmann::ordered_json& j, bool ascii = false);

// {"name": ..., "arguments": {...}} of a call, written as TemplateJson.
Result<std::string> CallJson(const llm::ToolCall& call, bool ascii = false);

}  // namespace seragen::exporter::internal
