// Where seragen's shipped data (prompts/, configs/) is found.
#pragma once

#include <string>

namespace seragen::config {

// The data directory chosen and why.
struct DataDirChoice {
  std::string path;    // holds prompts/ and configs/ (may be missing: see `found`)
  std::string origin;  // "installed", "SERAGEN_DATA_DIR" or "source tree"
  bool found = false;  // path/prompts is a directory
};

// The inputs of the choice, so it can be tested without moving the binary.
struct DataDirCandidates {
  std::string executable;   // absolute path of the running binary ("" if unknown)
  std::string env_value;    // SERAGEN_DATA_DIR ("" if unset)
  std::string source_tree;  // the checkout the binary was built from
};

// Order: EXE_DIR/../share/seragen when it holds prompts/ (an installed
// binary always uses the data installed with it, so a stale variable cannot
// mix versions); else SERAGEN_DATA_DIR when set (a binary copied alone);
// else the source tree compiled in (an uninstalled build/seragen). Never fails.
DataDirChoice ChooseDataDir(const DataDirCandidates& candidates);

// ChooseDataDir for this process (/proc/self/exe, the environment, the
// compiled-in source tree). Thread-safe; computed once.
const DataDirChoice& ProcessDataDir();

// ProcessDataDir().path.
std::string DataDir();

}  // namespace seragen::config
