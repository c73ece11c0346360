// RunProcess: start one program with limits, capture its merged output.
//
// The building block of the real runners. The program is started by a small
// separate program, the reaper (seragen-reaper, started with posix_spawn so
// the harness's memory is never copied), which stays behind until it ends.
// Thread-safe (no shared state; every pipe is close-on-exec so concurrent
// spawns never inherit each other's pipes). Any thread may call it: the
// process tree's lifetime is tied to this process (a lifeline pipe), not to
// the calling thread; if this process dies, the tree (and, with
// `credentials`, every process of that uid) is killed.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/sandbox/sandbox_options.h"

namespace seragen::sandbox {

struct ProcessSpec {
  std::string executable;         // absolute path (see FindExecutable)
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // "NAME=value"; exactly this environment
  std::string cwd;                // "" = inherit
  std::optional<ResourceLimits> limits;
  // Switch to this real+effective uid/gid (supplementary groups replaced by
  // `groups`) before exec. Requires root.
  std::optional<std::pair<uid_t, gid_t>> credentials;
  // Supplementary groups held after the switch to `credentials` (none when
  // empty), e.g. the sandbox group that may enter the environment cache.
  std::vector<gid_t> groups;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  std::size_t head_bytes = 48 * 1024;  // output kept from the start
  std::size_t tail_bytes = 16 * 1024;  // output kept from the end
  std::uint64_t kill_after_bytes = 256ull * 1024 * 1024;
  // Open fd 3 in the child as a second pipe whose content (up to
  // side_channel_cap bytes) is returned in ProcessOutcome::side_channel.
  bool side_channel = false;
  std::size_t side_channel_cap = 256 * 1024;
  // Bytes the program can read from fd 4 (a pipe, filled and closed before
  // the start, so it is empty once read; at most kMaxFd4InputBytes). Used
  // for bwrap's `--args 4`, which keeps host paths off its command line.
  std::optional<std::string> fd4_input;
  // A cgroup v2 `cgroup.procs` file the reaper joins (writes "0") before the
  // uid switch, so the program and all its descendants are in that cgroup.
  // "" = stay in the caller's cgroup.
  std::string cgroup_procs;
};

inline constexpr std::size_t kMaxFd4InputBytes = 1024 * 1024;

struct ProcessOutcome {
  int exit_code = -1;  // 128 + signal when signalled
  int term_signal = 0;
  bool timed_out = false;
  bool output_limit_killed = false;
  std::string head;  // raw bytes, cut on a UTF-8 boundary
  std::string tail;  // raw bytes; empty unless bytes were omitted
  std::uint64_t omitted_bytes = 0;
  std::uint64_t total_bytes = 0;
  std::string side_channel;
  bool side_channel_overflow = false;
  std::chrono::milliseconds duration{0};
};

// kIoError when the program cannot be started (the message names it and
// the errno text); everything that happens after exec is in the outcome.
// The process runs in its own process group; on timeout, output overflow,
// or after the main process exits, the whole group is killed with SIGKILL.
Result<ProcessOutcome> RunProcess(const ProcessSpec& spec);

// Absolute path of `name` (as is if it contains '/'), searching `path_var`
// (a PATH-style list). kNotFound when no executable file matches.
Result<std::string> FindExecutable(const std::string& name, const std::string& path_var);

}  // namespace seragen::sandbox
