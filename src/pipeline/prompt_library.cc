#include "seragen/pipeline/prompt_library.h"

#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/strings.h"
#include "seragen/base/template.h"

namespace seragen::pipeline {
namespace {

Result<std::string> ReadPrompt(const std::string& dir, const std::string& name) {
  std::string path = dir + "/" + name;
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return NotFoundError("prompt file missing: " + path);
  if (text->empty()) return InvalidArgumentError("prompt file is empty: " + path);
  return text;
}

// Renders with every allowed placeholder set, so unknown ones (also inside
// sections) and unbalanced sections fail now.
Status CheckTemplate(const std::string& text, const std::string& path, const TemplateValues& allowed) {
  Result<std::string> r = RenderTemplate(text, allowed, path);
  return r.ok() ? Status::Ok() : r.status();
}

}  // namespace

std::string LastClosingTag(const std::string& text) {
  std::size_t pos = text.rfind("</");
  while (pos != std::string::npos) {
    std::size_t end = text.find('>', pos);
    if (end != std::string::npos && end > pos + 2) {
      std::string name = text.substr(pos + 2, end - pos - 2);
      bool ok = !name.empty();
      for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
      if (ok) return name;
    }
    if (pos == 0) break;
    pos = text.rfind("</", pos - 1);
  }
  return "";
}

Result<PromptLibrary> PromptLibrary::Load(const std::string& dir, const config::PromptsConfig& n,
                                          const std::string& extra_material) {
  PromptLibrary p;
  p.dir_ = dir;
  SG_ASSIGN_OR_RETURN(p.system_, ReadPrompt(dir, n.system));
  SG_ASSIGN_OR_RETURN(p.rollout1_, ReadPrompt(dir, n.rollout1));
  SG_ASSIGN_OR_RETURN(p.rollout2_, ReadPrompt(dir, n.rollout2));
  SG_ASSIGN_OR_RETURN(p.issue_writer_, ReadPrompt(dir, n.issue_writer));
  SG_ASSIGN_OR_RETURN(p.judge_, ReadPrompt(dir, n.judge));
  SG_ASSIGN_OR_RETURN(p.trajectory_step_, ReadPrompt(dir, "trajectory_step.md"));
  SG_ASSIGN_OR_RETURN(p.categories_, config::LoadCategoryPrompts(dir + "/" + n.categories));
  p.system_ = std::string(TrimRight(p.system_, "\n "));
  SG_RETURN_IF_ERROR(CheckTemplate(p.system_, dir + "/" + n.system, {}));
  SG_RETURN_IF_ERROR(CheckTemplate(p.rollout1_, dir + "/" + n.rollout1,
                                   {{"function_name", ""},
                                    {"file_path", ""},
                                    {"category_prompt", ""},
                                    {"category_topic", ""},
                                    {"repo_root", ""},
                                    {"test_command", ""}}));
  SG_RETURN_IF_ERROR(CheckTemplate(p.rollout2_, dir + "/" + n.rollout2,
                                   {{"issue_text", ""}, {"repo_root", ""}, {"test_command", ""}}));
  SG_RETURN_IF_ERROR(CheckTemplate(p.issue_writer_, dir + "/" + n.issue_writer,
                                   {{"trajectory_summary", ""}, {"patch", ""}, {"demo_issue", ""}}));
  SG_RETURN_IF_ERROR(CheckTemplate(p.judge_, dir + "/" + n.judge,
                                   {{"problem_statement", ""}, {"trajectory_summary", ""}, {"patch", ""}}));
  SG_RETURN_IF_ERROR(
      CheckTemplate(p.trajectory_step_, dir + "/trajectory_step.md",
                    {{"step", ""}, {"reasoning", ""}, {"thought", ""}, {"action", ""}, {"observation", ""}}));
  p.issue_tag_ = LastClosingTag(p.issue_writer_);
  p.judge_tag_ = LastClosingTag(p.judge_);
  if (p.issue_tag_.empty())
    return InvalidArgumentError(dir + "/" + n.issue_writer + ": shows no output tag like </issue>");
  if (p.judge_tag_.empty()) return InvalidArgumentError(dir + "/" + n.judge + ": shows no output tag like </answer>");

  Sha256 h;
  for (const std::string* t :
       {&p.system_, &p.rollout1_, &p.rollout2_, &p.issue_writer_, &p.judge_, &p.trajectory_step_}) {
    h.UpdateField(*t);
  }
  for (const auto& c : p.categories_) {
    h.UpdateField(c.topic);
    h.UpdateField(c.prompt);
  }
  h.UpdateField(extra_material);
  p.hash_ = h.FinalHex();
  return p;
}

Result<std::string> PromptLibrary::Rollout1(const std::string& function_name, const std::string& file_path,
                                            int category_index, const RepoFacts& repo) const {
  if (category_index < 0 || static_cast<std::size_t>(category_index) >= categories_.size()) {
    return OutOfRangeError("category index " + std::to_string(category_index) + " outside 0.." +
                           std::to_string(categories_.size() - 1));
  }
  const auto& c = categories_[static_cast<std::size_t>(category_index)];
  return RenderTemplate(rollout1_,
                        {{"function_name", function_name},
                         {"file_path", file_path},
                         {"category_prompt", c.prompt},
                         {"category_topic", c.topic},
                         {"repo_root", repo.root},
                         {"test_command", repo.test_command}},
                        dir_ + "/rollout1");
}

Result<std::string> PromptLibrary::Rollout2(const std::string& issue_text, const RepoFacts& repo) const {
  return RenderTemplate(rollout2_,
                        {{"issue_text", issue_text}, {"repo_root", repo.root}, {"test_command", repo.test_command}},
                        dir_ + "/rollout2");
}

Result<std::string> PromptLibrary::IssueWriter(const std::string& summary, const std::string& patch,
                                               const std::string& demo) const {
  return RenderTemplate(issue_writer_, {{"trajectory_summary", summary}, {"patch", patch}, {"demo_issue", demo}},
                        dir_ + "/issue_writer");
}

Result<std::string> PromptLibrary::Judge(const std::string& problem, const std::string& summary,
                                         const std::string& patch) const {
  return RenderTemplate(judge_, {{"problem_statement", problem}, {"trajectory_summary", summary}, {"patch", patch}},
                        dir_ + "/judge");
}

Result<std::string> PromptLibrary::TrajectoryStep(int step, const StepText& text) const {
  return RenderTemplate(trajectory_step_,
                        {{"step", std::to_string(step)},
                         {"reasoning", text.reasoning},
                         {"thought", text.thought},
                         {"action", text.action},
                         {"observation", text.observation}},
                        dir_ + "/trajectory_step.md");
}

}  // namespace seragen::pipeline
