// Where the reaper program (seragen-reaper, reaper_main.cc) is, for RunProcess.
#pragma once

#include <string>

#include "seragen/base/result.h"

namespace seragen::sandbox {

// Where seragen-reaper is installed, relative to the directory of the
// running executable (P/bin/seragen -> P/libexec/seragen/seragen-reaper).
inline constexpr const char* kReaperInstallDir = "libexec/seragen";

// The reaper program RunProcess starts for every command (reaper_main.cc):
// `../libexec/seragen/seragen-reaper` from the running executable's
// directory, else the one in the build tree this code was built in.
// kNotFound naming both when neither exists. Looked up once per process.
Result<std::string> ReaperExecutable();

}  // namespace seragen::sandbox
