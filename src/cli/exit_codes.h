// Process exit codes of the seragen binary (documented in README and --help).
#pragma once

namespace seragen::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntimeFailure = 1;  // something failed while doing the work
inline constexpr int kExitUsage = 2;           // bad flags, bad config, bad input files

}  // namespace seragen::cli
