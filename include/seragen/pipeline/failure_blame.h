// Who a failure blames: the one rule behind every error the pipeline
// journals (docs/EXIT_STATUSES.md, "Who a failure blames").
//
//   model           the model's own output or context: it overflowed the
//                   window (context_overflow), left no room to answer
//                   (output_budget), or broke the tool protocol (tool_format,
//                   tool_args). Retrying the same task does not help.
//   configuration   the endpoint refused our settings (401/403/404, tool
//                   choice not enabled: config). Fixed by changing the config.
//   infrastructure  everything else, an untagged failure included: the
//                   network, the server, rate limits, quota, a rejected
//                   request, a cancelled call. A resumed run retries.
// Pure; thread-safe.
#pragma once

#include "seragen/agent/exit_status.h"
#include "seragen/journal/error_class.h"
#include "seragen/llm/failure.h"

namespace seragen::pipeline {

// The family of a failed model call.
journal::ErrorFamily ClassifyFailure(llm::FailureClass failure);
// The family of a rollout that ended on a failure (agent::IsInfrastructureExit):
// the call failure behind it when there is one (exit_config, exit_quota),
// infrastructure for the others; model for every other exit.
journal::ErrorFamily ClassifyFailure(agent::ExitStatus exit);

}  // namespace seragen::pipeline
