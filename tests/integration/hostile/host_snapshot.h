// Snapshots of a host directory tree (every entry's type, mode, owner, size,
// mtime, content hash or link target), to prove that a run changed nothing
// outside its working copy. Symlinks are recorded, never followed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace seragen::hostile {

struct EntryState {
  char type = '?';  // f file, d directory, l symlink, o other
  std::uint32_t mode = 0;
  std::uint32_t uid = 0, gid = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::string digest;  // SHA-256 of a file's bytes, or a symlink's target
  bool operator==(const EntryState&) const = default;
};

// Relative path ("" = the root itself) -> state.
using Snapshot = std::map<std::string, EntryState>;

Snapshot TakeSnapshot(const std::string& root);

// Human-readable differences ("added x", "changed x: size 3 -> 0"); empty when equal.
std::vector<std::string> DiffSnapshots(const Snapshot& before, const Snapshot& after);

// Files under `root` (symlinks not followed) whose bytes contain `needle`,
// read in bounded chunks, so a huge file costs no memory.
std::vector<std::string> FilesContaining(const std::string& root, const std::string& needle);

// True when the file at `path` contains `needle` (false when it cannot be read).
bool FileContains(const std::string& path, const std::string& needle);

// Total bytes of regular files under `root` (symlinks not followed).
std::uint64_t TreeBytes(const std::string& root);

}  // namespace seragen::hostile
