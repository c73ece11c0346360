#include "seragen/pipeline/env_health.h"

#include "seragen/env/import_failure.h"

namespace seragen::pipeline {

std::uint64_t CountEnvBroken(const agent::Trajectory& t, const std::vector<std::string>& own_modules,
                             const std::string& repo_root) {
  std::uint64_t n = 0;
  if (own_modules.empty()) return n;
  for (const agent::TurnRecord& turn : t.turns) {
    if (!turn.accepted || !turn.command_exit_code.has_value()) continue;
    if (env::FailsToImportOwnCode(turn.observation, own_modules, repo_root)) ++n;
  }
  return n;
}

bool EnvHealthTally::Exceeded(double max_share, std::uint64_t min_rollouts) const {
  const std::uint64_t n = rollouts();
  if (max_share >= 1.0 || n == 0 || n < min_rollouts) return false;
  return static_cast<double>(broken()) > max_share * static_cast<double>(n);
}

}  // namespace seragen::pipeline
