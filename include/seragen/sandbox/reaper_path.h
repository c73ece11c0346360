// Where the reaper program (seragen-reaper, reaper_main.cc) is, for RunProcess.
#pragma once

#include <string>

#include "seragen/base/result.h"

namespace seragen::sandbox {

// Where seragen-reaper is installed, relative to the directory of the
// running executable (P/bin/seragen -> P/libexec/seragen/seragen-reaper).
inline constexpr const char* kReaperInstallDir = "libexec/seragen";

// The reaper program RunProcess starts for every command (reaper_main.cc):
// FindReaper for this process's executable and the build tree this code was
// built in. Looked up once per process.
Result<std::string> ReaperExecutable();

// The first executable regular file of `DIR/../libexec/seragen/seragen-reaper`
// (DIR: the directory of `self_exe`, an installed bin/seragen) and
// `build_path` ("" = none); kNotFound naming every path tried otherwise.
Result<std::string> FindReaper(const std::string& self_exe, const std::string& build_path);

}  // namespace seragen::sandbox
