#include "seragen/tools/submit_tool.h"

#include "seragen/base/utf8.h"

namespace seragen::tools {

SubmitTool::SubmitTool(PatchSource* patches, const ToolMessages* messages, bool review, std::string tool_name)
    : patches_(patches), messages_(messages), review_(review), tool_name_(std::move(tool_name)) {}

Result<SubmitOutcome> SubmitTool::Submit() {
  SG_ASSIGN_OR_RETURN(std::string patch, patches_->CurrentPatch());
  SubmitOutcome outcome;
  if (review_ && (!reviewed_patch_ || *reviewed_patch_ != patch)) {
    reviewed_patch_ = patch;
    if (patch.empty()) {
      SG_ASSIGN_OR_RETURN(outcome.observation, messages_->Render("submit_review_empty", {{"submit_tool", tool_name_}}));
    } else {
      SG_ASSIGN_OR_RETURN(outcome.observation, messages_->Render("submit_review", {{"diff", RepairUtf8(patch)},
                                                                                   {"submit_tool", tool_name_}}));
    }
    return outcome;
  }
  SG_ASSIGN_OR_RETURN(outcome.observation, messages_->Render("submit_done", {}));
  outcome.submitted = true;
  outcome.patch = std::move(patch);
  return outcome;
}

}  // namespace seragen::tools
