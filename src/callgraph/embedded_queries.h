// The per-language tree-sitter query texts, compiled into the library from
// src/callgraph/queries/<language>.scm, JavaScript and TypeScript each after
// the shared ecmascript.scm (see CMakeLists.txt).
#pragma once

#include <string_view>

#include "seragen/callgraph/language.h"

namespace seragen::callgraph {

// TypeScript and TSX share typescript.scm. Never empty for a valid language.
std::string_view EmbeddedQueryText(Language language);

}  // namespace seragen::callgraph
