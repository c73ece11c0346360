#include "seragen/agent/exit_status.h"

#include <array>
#include <utility>

namespace seragen::agent {
namespace {

constexpr std::array<std::pair<ExitStatus, std::string_view>, 19> kNames{{
    {ExitStatus::kSubmitted, "submitted"},
    {ExitStatus::kFormat, "exit_format"},
    {ExitStatus::kContext, "exit_context"},
    {ExitStatus::kSteps, "exit_steps"},
    {ExitStatus::kModelCalls, "exit_model_calls"},
    {ExitStatus::kWallClock, "exit_wall_clock"},
    {ExitStatus::kCommandTime, "exit_command_time"},
    {ExitStatus::kTokens, "exit_tokens"},
    {ExitStatus::kCost, "exit_cost"},
    {ExitStatus::kCommandTimeouts, "exit_command_timeouts"},
    {ExitStatus::kDiskLimit, "exit_disk_limit"},
    {ExitStatus::kLlmError, "exit_llm_error"},
    {ExitStatus::kConfigError, "exit_config"},
    {ExitStatus::kQuota, "exit_quota"},
    {ExitStatus::kToolError, "exit_tool_error"},
    {ExitStatus::kCancelled, "exit_cancelled"},
    {ExitStatus::kPatchTooLarge, "exit_patch_too_large"},
    {ExitStatus::kTrajectoryTooLarge, "exit_trajectory_too_large"},
    {ExitStatus::kReplayDiverged, "exit_replay_diverged"},
}};

}  // namespace

std::string_view ExitStatusName(ExitStatus status) {
  for (const auto& [s, n] : kNames) {
    if (s == status) return n;
  }
  return "exit_unknown";
}

std::optional<ExitStatus> ParseExitStatus(std::string_view name) {
  for (const auto& [s, n] : kNames) {
    if (n == name) return s;
  }
  return std::nullopt;
}

bool IsInfrastructureExit(ExitStatus status) {
  switch (status) {
    case ExitStatus::kLlmError:
    case ExitStatus::kConfigError:
    case ExitStatus::kQuota:
    case ExitStatus::kToolError:
    case ExitStatus::kCancelled:
    case ExitStatus::kReplayDiverged: return true;
    default: return false;
  }
}

bool IsAutosubmitExit(ExitStatus status) {
  switch (status) {
    case ExitStatus::kFormat:
    case ExitStatus::kContext:
    case ExitStatus::kSteps:
    case ExitStatus::kModelCalls:
    case ExitStatus::kWallClock:
    case ExitStatus::kCommandTime:
    case ExitStatus::kCommandTimeouts:
    case ExitStatus::kTokens:
    case ExitStatus::kCost: return true;
    default: return false;
  }
}

std::string OutcomeName(ExitStatus status, bool autosubmitted) {
  std::string name(ExitStatusName(status));
  return autosubmitted ? "autosubmitted:" + name : name;
}

}  // namespace seragen::agent
