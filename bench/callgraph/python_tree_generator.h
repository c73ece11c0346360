// Deterministic synthetic Python repository for the call-graph benchmark:
// packages of modules with classes, methods, nested functions, decorators,
// comprehensions, and imports across packages (plain, aliased, from-imports,
// relative), so resolution is exercised, not just parsing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "seragen/callgraph/source_set.h"

namespace seragen::callgraph {

// Adds files until their total size reaches `target_bytes`.
void GeneratePythonTree(std::size_t target_bytes, std::uint64_t seed, InMemoryFileSource* out);

}  // namespace seragen::callgraph
