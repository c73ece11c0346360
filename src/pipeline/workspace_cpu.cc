#include "seragen/pipeline/workspace_cpu.h"

#include <time.h>

#include <atomic>

namespace seragen::pipeline {
namespace {

struct Totals {
  std::atomic<std::int64_t> ns[kWorkspacePhases] = {};
  std::atomic<std::int64_t> count[kWorkspacePhases] = {};
};

Totals& Global() {
  static Totals totals;
  return totals;
}

std::int64_t ThreadCpuNs() {
  timespec ts{};
  if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

std::string_view WorkspacePhaseName(WorkspacePhase phase) {
  switch (phase) {
    case WorkspacePhase::kAcquire: return "acquire";
    case WorkspacePhase::kCommand: return "command";
    case WorkspacePhase::kMeter: return "meter";
    case WorkspacePhase::kDiff: return "diff";
    case WorkspacePhase::kRelease: return "release";
  }
  return "?";
}

std::array<PhaseCpu, kWorkspacePhases> WorkspaceCpuTotals() {
  std::array<PhaseCpu, kWorkspacePhases> out;
  for (std::size_t i = 0; i < kWorkspacePhases; ++i) {
    out[i].seconds = static_cast<double>(Global().ns[i].load()) / 1e9;
    out[i].count = Global().count[i].load();
  }
  return out;
}

ScopedPhaseCpu::ScopedPhaseCpu(WorkspacePhase phase) : phase_(phase), start_ns_(ThreadCpuNs()) {}

ScopedPhaseCpu::~ScopedPhaseCpu() {
  const auto i = static_cast<std::size_t>(phase_);
  Global().ns[i] += ThreadCpuNs() - start_ns_;
  Global().count[i] += 1;
}

}  // namespace seragen::pipeline
