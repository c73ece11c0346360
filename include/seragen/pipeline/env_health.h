// Environment health of rollouts: how many of a rollout's shell commands
// failed to import the repository's own code (docs/ENVIRONMENTS.md,
// "Environment health"). Pure; thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "seragen/agent/trajectory.h"

namespace seragen::pipeline {

// Accepted shell commands of `t` (those with an exit status) whose output
// fails env::FailsToImportOwnCode for `own_modules` under `repo_root`.
std::uint64_t CountEnvBroken(const agent::Trajectory& t, const std::vector<std::string>& own_modules,
                             const std::string& repo_root);

// The run's tally of rollouts and of those with env_broken > 0, shared by
// the tasks (added on the pipeline loop) and read by the run's stop check
// (any thread).
class EnvHealthTally {
 public:
  void Add(bool broken) {
    rollouts_.fetch_add(1, std::memory_order_relaxed);
    if (broken) broken_.fetch_add(1, std::memory_order_relaxed);
  }
  std::uint64_t rollouts() const { return rollouts_.load(std::memory_order_relaxed); }
  std::uint64_t broken() const { return broken_.load(std::memory_order_relaxed); }
  // True once at least `min_rollouts` were added and more than `max_share`
  // of them were broken (max_share >= 1: never).
  bool Exceeded(double max_share, std::uint64_t min_rollouts) const;

 private:
  std::atomic<std::uint64_t> rollouts_{0};
  std::atomic<std::uint64_t> broken_{0};
};

}  // namespace seragen::pipeline
