#include "seragen/tools/submit_tool.h"

#include "seragen/base/utf8.h"
#include "seragen/base/utf8_chars.h"

namespace seragen::tools {

SubmitTool::SubmitTool(PatchSource* patches, const ToolMessages* messages, bool review, std::string tool_name,
                       std::size_t review_max_chars)
    : patches_(patches),
      messages_(messages),
      review_(review),
      tool_name_(std::move(tool_name)),
      review_max_chars_(review_max_chars) {}

Result<std::string> SubmitTool::ShownDiff(const std::string& patch) const {
  std::string shown = RepairUtf8(patch);
  const std::size_t total = Utf8CharCount(shown);
  if (total <= review_max_chars_) return shown;
  const std::size_t limit = Utf8PrefixBytes(shown, review_max_chars_);
  std::size_t cut = shown.rfind('\n', limit - 1);
  cut = cut == std::string::npos ? limit : cut + 1;
  SG_ASSIGN_OR_RETURN(
      std::string note,
      messages_->Render("submit_review_clipped",
                        {{"shown", std::to_string(Utf8CharCount(std::string_view(shown).substr(0, cut)))},
                         {"total", std::to_string(total)}}));
  return shown.substr(0, cut) + note + "\n";
}

Result<SubmitOutcome> SubmitTool::Submit() {
  Result<std::string> current = patches_->CurrentPatch();
  SubmitOutcome outcome;
  if (!current.ok() && current.status().code() == StatusCode::kResourceExhausted) {
    outcome.patch_too_large = true;
    outcome.observation = current.status().message();
    return outcome;
  }
  SG_ASSIGN_OR_RETURN(std::string patch, std::move(current));
  if (review_ && (!reviewed_patch_ || *reviewed_patch_ != patch)) {
    reviewed_patch_ = patch;
    if (patch.empty()) {
      SG_ASSIGN_OR_RETURN(outcome.observation, messages_->Render("submit_review_empty", {{"submit_tool", tool_name_}}));
    } else {
      SG_ASSIGN_OR_RETURN(std::string shown, ShownDiff(patch));
      SG_ASSIGN_OR_RETURN(outcome.observation,
                          messages_->Render("submit_review", {{"diff", shown}, {"submit_tool", tool_name_}}));
    }
    return outcome;
  }
  // As SWE-agent: the handed-in diff is the step's observation, an empty one
  // the sentence for an empty output.
  if (patch.empty()) {
    SG_ASSIGN_OR_RETURN(outcome.observation, messages_->Render("bash_no_output", {}));
  } else {
    SG_ASSIGN_OR_RETURN(outcome.observation, ShownDiff(patch));
  }
  outcome.submitted = true;
  outcome.patch = std::move(patch);
  return outcome;
}

}  // namespace seragen::tools
