// Internal: the schema of the whole configuration.
#pragma once

#include "config/schema.h"

namespace seragen::config::internal {

// The root schema (built once, immutable, thread-safe to share).
const Section<Config>& RootSchema();

// Cross-field checks and derived defaults, after per-field parsing.
void Finalize(Config& config, const ParseContext& ctx, const YAML::Node& root);

}  // namespace seragen::config::internal
