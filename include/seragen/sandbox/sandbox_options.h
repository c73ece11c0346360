// Options that decide how (and how tightly) an agent command is confined.
//
// Plain data, copyable. Validate with ValidateSandboxOptions() before use.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "seragen/base/status.h"

namespace seragen::sandbox {

// Per-process kernel limits (setrlimit) applied before the sandbox starts;
// every process inside inherits them. A value <= 0 leaves that limit unset.
struct ResourceLimits {
  // RLIMIT_CPU, CPU seconds per process. Soft limit (SIGXCPU); the hard limit
  // is one second more (SIGKILL).
  int cpu_seconds = 120;
  // RLIMIT_AS, address space per process, in MiB.
  std::int64_t memory_mb = 4096;
  // RLIMIT_NPROC: processes (and threads) of the sandbox's real uid. Only
  // enforced when that uid is not 0, hence one uid per concurrent slot.
  int max_processes = 256;
  // RLIMIT_FSIZE, largest file a process may write, in MiB.
  std::int64_t max_file_mb = 1024;
};

// Limits of one command run.
struct RunLimits {
  // Wall clock; on expiry the whole process tree is killed.
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  // Output characters kept (code points, as SWE-agent's len() counts an
  // observation): the first 3/4 and the last 1/4 of this budget (stdout and
  // stderr merged); the middle is dropped and counted. The capture holds 4
  // bytes per character (UTF-8's longest), so the cut is made after decoding.
  std::size_t output_cap_chars = 64 * 1024;
  // A command that writes more than this in total is killed (its output is
  // not buffered; this only bounds the time spent draining the pipe).
  std::uint64_t output_kill_bytes = 256ull * 1024 * 1024;
  ResourceLimits resources;
};

struct SandboxOptions {
  // The bubblewrap executable: an absolute path, or a name looked up in PATH.
  std::string bwrap_path = "bwrap";
  // Where the working copy appears inside the sandbox. Absolute, one path
  // component (e.g. "/repo"); any rootfs entry with that name is hidden.
  std::string mount_point = "/repo";
  // Root filesystem shown read-only inside; "" = the host's "/".
  std::string rootfs;
  // Host paths made visible read-only at the same path inside (e.g. the
  // source repository's .git/objects that an alternates copy points to).
  std::vector<std::string> extra_ro_binds;
  // Host directories shown at another path inside (e.g. a prepared
  // environment prefix at /env). Read-only unless `writable` (environment
  // setup only). Bound after the root, so they hide rootfs entries.
  struct Bind {
    std::string host;
    std::string inside;  // absolute
    bool writable = false;
  };
  std::vector<Bind> binds;
  // Keep the host network (environment setup with setup_network only;
  // rollouts never get it).
  bool share_network = false;
  // Paths (inside) replaced by an empty tmpfs, e.g. the run directory and
  // the working-copy pool, so one rollout cannot read another's copy.
  std::vector<std::string> hidden_paths;
  // Size cap of the private /tmp (tmpfs), MiB, when host_tmp is empty.
  std::int64_t tmp_size_mb = 1024;
  // A host directory shown read-write at /tmp instead of a new tmpfs per
  // command: the rollout's /tmp, which lasts from one command to the next
  // (its lease creates, measures and deletes it). Owned by `uid`. "" = none.
  std::string host_tmp;
  // Real uid/gid the sandbox runs as (outside), also used inside. Must not
  // be 0 (see SandboxUidForSlot). The working copy must be owned by it
  // (PrepareWorkingCopy).
  uid_t uid = 20000;
  gid_t gid = 20000;
  // Supplementary groups of the sandbox's processes (when the harness is root
  // and switches uid): SandboxGroup(uid_base), the one group that may enter
  // the environment cache (image roots and prefixes are bound from there).
  std::vector<gid_t> groups;
  // Environment inside: cleared, then these (defaults filled by
  // DefaultSandboxEnv() when empty).
  std::map<std::string, std::string> env;
  // Shell that runs each command as `shell -c COMMAND`.
  std::string shell = "/bin/bash";
  // Limits used by the tools unless they pass their own.
  RunLimits limits;
  // The slot's cgroup v2 cgroup.procs (SlotCgroups::PrepareSlot); every
  // command joins it. "" = no cgroup (only the per-process limits).
  std::string cgroup_procs;
};

// PATH, HOME=/tmp, LANG/LC_ALL=C.UTF-8, TERM=dumb, PAGER=cat, GIT_PAGER=cat,
// PYTHONUNBUFFERED=1: a plain non-interactive environment. Python's bytecode
// cache is under /tmp/.pycache (PYTHONPYCACHEPREFIX), never in the working
// copy, so it is never part of a patch: the shared bytecode cache bound there
// read-only (env/bytecode_cache.h), or else the rollout's own /tmp.
std::map<std::string, std::string> DefaultSandboxEnv();

// uid_base + slot; each concurrent slot needs its own uid for RLIMIT_NPROC.
uid_t SandboxUidForSlot(uid_t uid_base, int slot);

// uid_base - 1: the group every slot of a run holds besides its own. The
// environment cache directory is root:<this group> 0750, so only sandboxed
// commands (and root) can pass it; no other host user can.
gid_t SandboxGroup(uid_t uid_base);

// kInvalidArgument naming the field when options cannot work (relative or
// nested mount point, uid 0, relative bind paths, non-positive timeout...).
Status ValidateSandboxOptions(const SandboxOptions& options);

}  // namespace seragen::sandbox
