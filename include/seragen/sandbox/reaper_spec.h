// ReaperSpec: what the reaper program (seragen-reaper) is told about the
// program it starts, and the byte form in which RunProcess hands it over.
//
// RunProcess starts the reaper with posix_spawn (no copy of the harness's
// address space) and writes the encoded spec to the reaper's fd 7; the
// reaper reads it to EOF, then sets limits, cgroup, uid and directory and
// forks the program. The spec never travels on a command line or in the
// reaper's environment (both would be visible, the latter to the loader).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "seragen/sandbox/sandbox_options.h"

namespace seragen::sandbox {

struct ReaperSpec {
  std::string executable;         // absolute path of the program
  std::vector<std::string> argv;  // argv[0] included; never empty
  std::vector<std::string> env;   // the program's whole environment
  std::string cwd;                // "" = the reaper's own
  std::optional<ResourceLimits> limits;
  std::optional<std::pair<uid_t, gid_t>> credentials;
  std::vector<gid_t> groups;
  std::string cgroup_procs;  // "" = stay in the harness's cgroup
};

// Bytes the reaper reads at most; a longer spec is refused on both sides.
inline constexpr std::size_t kMaxReaperSpecBytes = 16u << 20;

// Descriptor numbers of the reaper as started (fd 3 and 4 closed when the
// program gets no side channel / no fd 4 input).
inline constexpr int kReaperInputFd = 4;     // ProcessSpec::fd4_input, inherited by the program
inline constexpr int kReaperErrFd = 5;       // start report to the harness
inline constexpr int kReaperLifelineFd = 6;  // read end; hangs up when the harness dies
inline constexpr int kReaperSpecFd = 7;      // the encoded ReaperSpec, then EOF
inline constexpr int kReaperFds = 8;

// Start-report stages (the reaper writes {stage, errno} to kReaperErrFd on
// failure, {0, program pid} once the program is forked).
enum ReaperStage : int {
  kStageStreams = 1,
  kStageCredentials = 2,
  kStageCwd = 3,
  kStageExec = 4,
  kStageFork = 5,
  kStageCgroup = 6,
  kStageSpec = 7,
};

std::string EncodeReaperSpec(const ReaperSpec& spec);
// nullopt for anything but exactly one well-formed spec with a non-empty
// argv and executable (truncated, trailing bytes, counts past the size).
std::optional<ReaperSpec> DecodeReaperSpec(std::string_view bytes);

}  // namespace seragen::sandbox
