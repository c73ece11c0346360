// The checkout's source and build directories, for tests and benchmarks that
// read shipped files (prompts/, configs/, fixtures) or run the built binary.
// Only source_paths.cc is compiled with the absolute paths (see
// CMakeLists.txt): every other test and benchmark object is then the same in
// every checkout and comes from the compiler cache in a fresh clone.
#pragma once

#include <string>
#include <string_view>

namespace seragen::testing {

// The source tree's root, without a trailing slash.
std::string SourceDir();

// The build directory (where `seragen` is built), without a trailing slash.
std::string BinaryDir();

// SourceDir() + "/" + relative.
std::string SourcePath(std::string_view relative);

}  // namespace seragen::testing
