// Python bytecode compiled once outside any rollout and shown read-only to
// every rollout as its PYTHONPYCACHEPREFIX tree: the interpreter's library
// once per (root, environment), a repository's files once per (repository,
// commit, environment); the rollout sees the repository's tree at the mount
// point's place inside the library's.
//
// The compile runs in the sandbox (the repository is hostile input; compiling
// executes none of its code, but its files are read by an interpreter all the
// same), as hash-checked pycs (PEP 552 `checked-hash`): a copy's mtimes do not
// matter, and a file the agent edits no longer matches its pyc, so Python
// compiles it again on import and never runs stale bytecode. A rollout cannot
// write into the shared tree (read-only bind); Python then silently skips
// writing the pycs of edited or new files and compiles them per import.
//
// What the cache directory holds is only reached by rollouts of the same key,
// and only as regular `.pyc` files owned by root (SealCompiledTree).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/env/environment.h"
#include "seragen/env/group_cache_dir.h"

namespace seragen::env {

// Where the tree appears inside the sandbox: the prefix rollouts already use
// (sandbox::DefaultSandboxEnv's PYTHONPYCACHEPREFIX), in the rollout's /tmp.
inline constexpr const char* kPycachePrefix = "/tmp/.pycache";

// What the compiled tree depends on besides the files: the root the
// interpreter comes from, the environment prefix (its site-packages), the
// variables commands see (PATH picks the interpreter, PYTHONPATH adds paths)
// and where the copy appears. A library entry has no repository and commit.
struct BytecodeCacheKeyParts {
  std::string repo;  // "" for the library
  std::string commit;
  std::string root_id;     // EnvironmentSpec::root_id or the rootfs ("" = host root)
  std::string prefix_dir;  // the prepared environment prefix ("" = none), already keyed by its setup
  std::map<std::string, std::string> env;
  std::string mount_point = "/repo";
};

// Hex key of one cache entry; any change to a part gives another key.
std::string BytecodeCacheKey(const BytecodeCacheKeyParts& parts);

enum class BytecodeScope { kRepository, kLibrary };

// The shell command that compiles, with each of `python3` and `python` found
// on PATH, either the .py files under `mount_point` or the interpreter's
// library paths (sys.path and PYTHONPATH outside the mount point, without test
// packages) into kPycachePrefix. The interpreter runs isolated (-I: no current
// directory or user site on its path) and stops by itself after `cpu_budget_s`
// CPU seconds, keeping what it compiled.
std::string BytecodeCompileCommand(BytecodeScope scope, const std::string& mount_point, int cpu_budget_s);

struct BytecodeCacheOptions {
  std::string cache_dir;  // node-wide directory owned by seragen (GuardCacheDir)
  std::string key;        // BytecodeCacheKey
  BytecodeScope scope = BytecodeScope::kRepository;
  std::string mount_point = "/repo";
  // Directories made empty in a new entry (a library entry's mount point, where
  // the repository's tree is bound over it).
  std::vector<std::string> mount_dirs;
  int cpu_budget_s = 120;  // the compiler's own stop (the sandbox's limits bound it too)
  // After publishing a new entry, least recently used entries are removed
  // until the directory holds at most this much.
  std::uint64_t max_cache_bytes = 4ull << 30;
};

struct BytecodeCache {
  std::string dir;          // host directory to bind read-only at kPycachePrefix
  bool reused = false;      // taken from the cache (nothing compiled)
  std::uint64_t files = 0;  // pycs in it (0: nothing to bind)
  std::uint64_t bytes = 0;
  std::string compiler_output;  // the compile command's summary line(s) when it ran
};

// The entry of options.key, or compiles it: `compiler` runs
// BytecodeCompileCommand with a fresh directory writable at kPycachePrefix;
// then SealCompiledTree, an atomic rename to the key, and pruning. A file lock
// on the key keeps concurrent processes from compiling it twice. Any failure
// (the command failed or timed out) is an error and leaves no entry.
Result<BytecodeCache> PrepareBytecodeCache(const BytecodeCacheOptions& options, SetupRunner& compiler);

// Keeps only directories and regular files named *.pyc under `dir` (links,
// devices, fifos and other files are removed, never followed), makes them
// root-owned when running as root, directories 0755 and files 0644, and
// counts what stays. Errors when the tree exceeds `max_entries`.
Status SealCompiledTree(const std::string& dir, std::uint64_t max_entries, std::uint64_t& files, std::uint64_t& bytes);

// Removes least recently used entries (directory mtime, refreshed when an
// entry is taken) until the entries' total size is at most `max_bytes`,
// never `keep_key`; also removes compile directories left by killed processes.
Status PruneBytecodeCache(const std::string& dir, std::uint64_t max_bytes, const std::string& keep_key);

}  // namespace seragen::env
