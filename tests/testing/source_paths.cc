#include "testing/source_paths.h"

// SERAGEN_SOURCE_DIR and SERAGEN_BINARY_DIR are defined for this file alone.
namespace seragen::testing {

std::string SourceDir() { return SERAGEN_SOURCE_DIR; }

std::string BinaryDir() { return SERAGEN_BINARY_DIR; }

std::string SourcePath(std::string_view relative) { return SourceDir() + "/" + std::string(relative); }

}  // namespace seragen::testing
