// Runs the built seragen binary for the CLI tests.
#pragma once

#include <string>

#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::testing {

// Runs `seragen ARGS` through the shell; returns its exit code and stores
// stdout+stderr in *out.
inline int RunSeragen(const std::string& args, std::string* out) {
  return RunShell(seragen::testing::BinaryDir() + "/seragen " + args, out);
}

}  // namespace seragen::testing
