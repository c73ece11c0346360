// Small filesystem helpers with Status results and durable writes.
#pragma once

#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/base/status.h"

namespace seragen {

Result<std::string> ReadFile(const std::string& path);

// Writes `content` to `path` so that a crash leaves either the old file or the
// new one, never a mix: write to a temp file in the same directory, fsync it,
// rename over `path`, fsync the directory. Creates parent directories.
Status WriteFileAtomic(const std::string& path, std::string_view content);

// Creates the directory and its parents (no error if it exists).
Status MakeDirs(const std::string& path);

// fsync of a directory, so a rename or create inside it is durable.
Status SyncDir(const std::string& path);

}  // namespace seragen
