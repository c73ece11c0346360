// A tool call's arguments as text (pure; thread-safe).
#pragma once

#include <string>

#include "seragen/llm/types.h"

namespace seragen::llm {

// The call's arguments as the text the model wrote: arguments_raw byte for
// byte when it is one JSON object (spacing, escapes and repeated keys
// included), else the parsed object (a double-serialised object), else "{}".
// What history sends back and what exports that carry an argument string
// write.
std::string ModelArgumentsText(const ToolCall& call);

}  // namespace seragen::llm
