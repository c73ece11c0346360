// Small filesystem helpers with Status results and durable writes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/base/status.h"
#include "seragen/base/unique_fd.h"

namespace seragen {

Result<std::string> ReadFile(const std::string& path);

// For files someone else may have damaged or replaced (every file of a run
// directory): opens `path` read-only without following a symbolic link in its
// last component and without blocking, so a FIFO, socket or device is refused
// instead of waited on; only a regular file of at most `max_bytes` is
// accepted. The descriptor returned is blocking again. Errors name the path:
// kNotFound when missing, kDataLoss when it is not a regular file (the kind
// is named), kResourceExhausted when larger than `max_bytes`.
Result<UniqueFd> OpenRegularFile(const std::string& path, std::uint64_t max_bytes);

// The content of such a file, at most `max_bytes` (also when it grows while
// being read).
Result<std::string> ReadRegularFile(const std::string& path, std::uint64_t max_bytes);

// Writes `content` to `path` so that a crash leaves either the old file or the
// new one, never a mix: write to a temp file in the same directory, fsync it,
// rename over `path`, fsync the directory. Creates parent directories.
Status WriteFileAtomic(const std::string& path, std::string_view content);

// Creates the directory and its parents (no error if it exists).
Status MakeDirs(const std::string& path);

// fsync of a directory, so a rename or create inside it is durable.
Status SyncDir(const std::string& path);

}  // namespace seragen
