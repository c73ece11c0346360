// The working copy's current patch, as the agent loop and the submit tool see
// it (one interface for both; the pipeline's leased copy implements it over
// repo's diff, tests with fakes).
#pragma once

#include <string>

#include "seragen/base/result.h"

namespace seragen {

// The working copy's current diff against the base commit (untracked files
// included), in git diff format. Called on a worker thread. ResourceExhausted
// when the diff is over its size limit (never computed in full): the submit
// tool then shows nothing and the rollout ends as exit_patch_too_large.
class PatchSource {
 public:
  virtual ~PatchSource() = default;
  virtual Result<std::string> CurrentPatch() = 0;
};

}  // namespace seragen
