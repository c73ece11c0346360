// SubmitTool: ends the rollout with the working copy's diff. With review on,
// the first call shows the full diff and asks the agent to confirm; the next
// call submits. If the diff changed since it was shown, it is shown again.
// The call that submits answers with the diff itself, as SWE-agent's submit
// step does (an empty diff with the empty-output sentence).
#pragma once

#include <optional>
#include <string>

#include "seragen/base/patch_source.h"
#include "seragen/base/result.h"
#include "seragen/tools/tool_messages.h"

namespace seragen::tools {

struct SubmitOutcome {
  std::string observation;
  bool submitted = false;
  // The diff is over its size limit (the source said ResourceExhausted):
  // nothing was shown or submitted; `observation` says why. Ends the rollout.
  bool patch_too_large = false;
  std::string patch;  // the submitted patch (when submitted)
};

class SubmitTool {
 public:
  // review_max_chars: characters (code points) of the diff shown in the
  // review and in the final answer; a longer diff is cut at a line, with a note.
  SubmitTool(PatchSource* patches, const ToolMessages* messages, bool review, std::string tool_name,
             std::size_t review_max_chars = 40000);

  // Non-OK when the patch cannot be computed (an infrastructure failure); a
  // patch over its size limit is an outcome (patch_too_large), not an error.
  Result<SubmitOutcome> Submit();

 private:
  // The diff as shown: repaired UTF-8, cut at a line within review_max_chars.
  Result<std::string> ShownDiff(const std::string& patch) const;

  PatchSource* patches_;
  const ToolMessages* messages_;
  bool review_;
  std::string tool_name_;
  std::size_t review_max_chars_;
  std::optional<std::string> reviewed_patch_;
};

}  // namespace seragen::tools
