// Small filesystem helpers with Status results and durable writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
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

// One line of a file as ForEachLine gives it.
struct FileLine {
  std::string_view text;   // without its '\n'; empty when too_long
  bool terminated = true;  // a '\n' ended it (only the last line can lack one)
  bool too_long = false;   // longer than the caller's max_line_bytes: its bytes were not kept
};

// Streams such a file a line at a time, holding at most one read chunk and
// one line of at most `max_line_bytes` (a longer line is given as too_long,
// and is not held). The first error of `visit` stops the reading and is the
// result; errors of the file as OpenRegularFile and ReadRegularFile.
Status ForEachLine(const std::string& path, std::uint64_t max_bytes,
                   const std::function<Status(const FileLine&)>& visit, std::size_t max_line_bytes = SIZE_MAX);

// Writes `content` to `path` so that a crash leaves either the old file or the
// new one, never a mix: write to a temp file in the same directory, fsync it,
// rename over `path`, fsync the directory. Creates parent directories. The
// temp file is an AtomicFile's (atomic_file.h): a name planted beside `path`
// (a symlink, a file) is never opened.
Status WriteFileAtomic(const std::string& path, std::string_view content);

// Writes `content` to `path` in place (created, or truncated when it exists),
// without a temp file or fsync: for files nothing reads while they are
// written. Refuses to follow a symbolic link in the last component.
Status WriteFileInPlace(const std::string& path, std::string_view content);

// Creates the directory and its parents (no error if it exists).
Status MakeDirs(const std::string& path);

// fsync of a directory, so a rename or create inside it is durable.
Status SyncDir(const std::string& path);

}  // namespace seragen
