// SERA's post-processing rules for one message of the sera format (internal
// to this module), restated from its public code. Pure; thread-safe.
#pragma once

#include <string>

#include "seragen/base/result.h"

namespace seragen::exporter::internal {

// SERA's think rule, applied to every message whatever its role: a text that
// holds "<think>" must hold exactly one <think>...</think> block (the first
// "</think>" after a "<think>" closes it), which is rewritten as "<think>\n" +
// its body stripped as Python's str.strip() + "\n</think>". Any other count
// is kFailedPrecondition (SERA drops the row). A text without "<think>" is
// returned as it is.
Result<std::string> SeraOneThinkBlock(const std::string& text);

// SERA's keep_only_think for an assistant turn already through
// SeraOneThinkBlock: the stripped text splits into an optional leading think
// block, the visible text up to the first "<tool_call>", and the rest. An
// empty or missing think block is replaced by one holding the stripped visible
// text; the visible text next to a non-empty one is dropped; the turn is
// think block, blank line, rest. We differ from SERA in one case: when the
// rest is not exactly `call` (a "<tool_call>" written in the visible text or
// after a stray "</think>", which SERA would train as part of the call), the
// turn is kFailedPrecondition.
Result<std::string> SeraKeepOnlyThink(const std::string& text, const std::string& call);

}  // namespace seragen::exporter::internal
