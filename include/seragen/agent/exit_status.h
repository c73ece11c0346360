// How a rollout ended. Documented for users in docs/EXIT_STATUSES.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace seragen::agent {

enum class ExitStatus {
  kSubmitted,           // the agent submitted (after the review step, if enabled)
  kFormat,              // exit_format: N consecutive malformed turns
  kContext,             // exit_context: the history no longer fits the model's window
  kSteps,               // exit_steps: agent.max_steps accepted turns reached
  kModelCalls,          // exit_model_calls: agent.max_model_calls model calls made (format errors included)
  kWallClock,           // exit_wall_clock: rollout time limit reached
  kCommandTime,         // exit_command_time: summed command run time passed agent.max_command_seconds
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

// Limits after which the working tree's diff is still submitted, as SERA's
// harness does (the rollout is then "autosubmitted"; its exit status stays the
// limit that ended it). Budgets, context overflow and repeated format errors
// qualify; disk, patch and record size limits and infrastructure exits do not.
bool IsAutosubmitExit(ExitStatus status);

// How a rollout ended, for people: the status name, or
// "autosubmitted:<status name>" when the diff was submitted after a limit.
std::string OutcomeName(ExitStatus status, bool autosubmitted);

}  // namespace seragen::agent
