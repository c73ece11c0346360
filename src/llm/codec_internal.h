// Decoding pieces shared by wire_codec.cc and sse_assembler.cc (src/llm only).
#pragma once

#include <optional>

#include "llm/json_util.h"
#include "seragen/base/status.h"
#include "seragen/llm/types.h"

namespace seragen::llm::internal {

// Fills `out` from a usage object (no-op for null/non-objects). A token
// count that cannot be true (negative, not an integer, above 2^53, not a
// number) is a server fault: kTransientServer naming the field and value.
Status ReadUsage(const Json& usage, Usage& out);
// A top-level error object (nested "error" or flat object:"error") in a 2xx
// body or stream chunk, as a classified failure; nullopt when none.
std::optional<Status> InBandError(const Json& j);

}  // namespace seragen::llm::internal
