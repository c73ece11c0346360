// How a rollout ended. Documented for users in docs/EXIT_STATUSES.md.
#pragma once

#include <optional>
#include <string_view>

namespace seragen::agent {

enum class ExitStatus {
  kSubmitted,           // the agent submitted (after the review step, if enabled)
  kFormat,              // exit_format: N consecutive malformed turns
  kContext,             // exit_context: the history no longer fits the model's window
  kSteps,               // exit_steps: step limit reached
  kWallClock,           // exit_wall_clock: rollout time limit reached
  kTokens,              // exit_tokens: token budget of the rollout spent
  kCost,                // exit_cost: cost budget of the rollout spent
  kCommandTimeouts,     // exit_command_timeouts: N consecutive commands timed out
  kDiskLimit,           // exit_disk_limit: the working copy grew past sandbox.max_copy_mb
  kLlmError,            // exit_llm_error: the endpoint kept failing (infrastructure)
  kConfigError,         // exit_config: the endpoint rejected our configuration (abort the run)
  kQuota,               // exit_quota: the provider refused for quota/credits (stop scheduling)
  kToolError,           // exit_tool_error: the harness could not run a tool (infrastructure)
  kCancelled,           // exit_cancelled: shutdown requested; redone on resume
  kPatchTooLarge,       // exit_patch_too_large: the working copy's diff passed agent.max_patch_bytes
  kTrajectoryTooLarge,  // exit_trajectory_too_large: the record passed agent.max_trajectory_bytes
  kReplayDiverged,      // exit_replay_diverged: a resumed rollout no longer matches its turn log
                        // (the caller starts it again from scratch; never journaled)
};

// "submitted", "exit_format", ... (stable: stored in journals and metadata).
std::string_view ExitStatusName(ExitStatus status);
std::optional<ExitStatus> ParseExitStatus(std::string_view name);

// Infrastructure failures are never training data and never count as model failures.
bool IsInfrastructureExit(ExitStatus status);

}  // namespace seragen::agent
