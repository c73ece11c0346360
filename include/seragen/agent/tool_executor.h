// The agent loop's view of the tools (the tools module implements
// ToolExecutor); the working copy's patch comes through base's PatchSource.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "seragen/base/patch_source.h"
#include "seragen/base/result.h"
#include "seragen/llm/types.h"

namespace seragen::agent {

struct ToolOutcome {
  enum class Kind {
    kObservation,    // the call ran (successfully or not); `text` goes to the model
    kInvalidCall,    // unknown tool, missing/extra/ill-typed arguments: a format error
    kHarnessError,   // the harness itself failed (sandbox broken): ends the rollout
    kPatchTooLarge,  // submit found the diff over its size limit: ends the rollout
                     // as exit_patch_too_large (the agent's doing, not the harness's)
  };
  Kind kind = Kind::kObservation;
  std::string text;              // observation, or the validation problem for kInvalidCall
  bool submitted = false;        // the submit tool accepted the submission
  bool timed_out = false;        // a command hit its time limit
  std::optional<int> exit_code;  // a shell command's exit status (absent for other tools and timeouts)
  // The working copy grew past its disk limit: the observation says so and
  // the rollout ends with exit_disk_limit (the model's doing).
  bool disk_limit = false;
  std::chrono::microseconds duration{0};
};

// Runs one validated-JSON tool call. Called on a worker thread (may block);
// one rollout never calls it concurrently with itself.
class ToolExecutor {
 public:
  virtual ~ToolExecutor() = default;
  virtual std::vector<llm::ToolSpec> Specs() const = 0;
  virtual ToolOutcome Execute(const llm::ToolCall& call) = 0;
};

}  // namespace seragen::agent
