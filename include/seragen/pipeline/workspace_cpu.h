// Workspace CPU: what the rollouts' working copies cost seragen itself, per
// phase, summed over the process since it started: taking a copy (claim,
// prepare, ownership, the disk meter's first walk, the runner), a sandboxed
// command (spawning it, waiting, reading its output; the command's own CPU is
// its processes'), the disk meter after a command, the patch (diff against
// the base),
// and giving the copy back (restore). Each phase is timed on the calling
// thread's CPU clock, so other threads' work meanwhile is not counted; the
// copy-on-write faults a fork leaves behind land in whichever thread writes a
// page later, outside every phase. For benchmarks and diagnosis.
//
// Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace seragen::pipeline {

enum class WorkspacePhase { kAcquire, kCommand, kMeter, kDiff, kRelease };
inline constexpr std::size_t kWorkspacePhases = 5;

std::string_view WorkspacePhaseName(WorkspacePhase phase);

struct PhaseCpu {
  double seconds = 0;      // thread CPU, user + system
  std::int64_t count = 0;  // phases timed
};

// Totals per phase, indexed by WorkspacePhase.
std::array<PhaseCpu, kWorkspacePhases> WorkspaceCpuTotals();

// Adds the calling thread's CPU between construction and destruction to `phase`.
class ScopedPhaseCpu {
 public:
  explicit ScopedPhaseCpu(WorkspacePhase phase);
  ~ScopedPhaseCpu();
  ScopedPhaseCpu(const ScopedPhaseCpu&) = delete;
  ScopedPhaseCpu& operator=(const ScopedPhaseCpu&) = delete;

 private:
  WorkspacePhase phase_;
  std::int64_t start_ns_;
};

}  // namespace seragen::pipeline
