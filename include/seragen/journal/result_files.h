// Durable result files inside a shard directory (trajectories and other data
// a journal record refers to). Write the file with WriteResultFile, then
// append the record whose refs name it: after a crash a record never points at
// a missing or partial file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "seragen/base/result.h"

namespace seragen::journal {

// Creates `path` and its missing parents and fsyncs the parent of every
// directory it created, so the new directory entries survive a crash (a file
// fsync does not make a freshly created parent directory durable).
Status MakeDirsDurable(const std::string& path);

// Writes `bytes` to shard_dir/relative_path durably (temp file in the same
// directory, fsync, rename, fsync of the directory; missing parents created
// with MakeDirsDurable). The
// path must be relative, non-empty and without ".." segments (kInvalidArgument
// otherwise), the same rule the journal applies to refs. Safe to call from
// several threads for different paths.
Status WriteResultFile(const std::string& shard_dir, std::string_view relative_path, std::string_view bytes);

// The largest result file ReadResultFile reads.
inline constexpr std::uint64_t kMaxResultFileBytes = 256ull << 20;

// Reads shard_dir/relative_path (a ref from a record); same path rule. Only a
// regular file, never through a symbolic link or waiting on a FIFO
// (ReadRegularFile), at most kMaxResultFileBytes.
Result<std::string> ReadResultFile(const std::string& shard_dir, std::string_view relative_path);

// Removes temp files a crash left behind under shard_dir/subdir (names ending
// in ".tmp.<digits>", as made by the atomic writer). Call only while holding
// the shard lock (Journal open). Returns how many were removed.
Result<std::size_t> RemoveStaleTempFiles(const std::string& shard_dir, std::string_view subdir);

}  // namespace seragen::journal
