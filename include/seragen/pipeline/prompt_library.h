// PromptLibrary: the prompt files of a run, checked at load time and hashed
// (the hash is part of the recipe, so changing any wording changes task ids).
#pragma once

#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/config/config.h"
#include "seragen/config/prompt_files.h"

namespace seragen::pipeline {

// What the rollout prompts say about the repository a rollout works on.
struct RepoFacts {
  std::string root;          // where the agent sees it, e.g. "/repo" ({{repo_root}})
  std::string test_command;  // environment.test_command, "" when unset ({{test_command}})
};

class PromptLibrary {
 public:
  // Loads the files named by `names` from `dir` plus prompts `dir`/trajectory_step.md.
  // Every template is test-rendered so an unknown placeholder fails here,
  // naming the file. `extra_material` (e.g. the tools file's text) joins the hash.
  static Result<PromptLibrary> Load(const std::string& dir, const config::PromptsConfig& names,
                                    const std::string& extra_material = "");

  const std::string& system() const { return system_; }
  const std::vector<config::CategoryPrompt>& categories() const { return categories_; }
  const std::string& hash() const { return hash_; }
  // Output tags the issue writer and judge are asked to use: the last
  // closing tag that appears in each template ("issue", "answer").
  const std::string& issue_tag() const { return issue_tag_; }
  const std::string& judge_tag() const { return judge_tag_; }

  // Rollout prompts; placeholders function_name, file_path, category_prompt,
  // category_topic (rollout 1), issue_text (rollout 2), repo_root and
  // test_command (both; "{{#test_command}}" sections read naturally without one).
  Result<std::string> Rollout1(const std::string& function_name, const std::string& file_path, int category_index,
                               const RepoFacts& repo) const;
  Result<std::string> Rollout2(const std::string& issue_text, const RepoFacts& repo) const;
  Result<std::string> IssueWriter(const std::string& trajectory_summary, const std::string& patch,
                                  const std::string& demo_issue) const;
  Result<std::string> Judge(const std::string& problem_statement, const std::string& trajectory_summary,
                            const std::string& patch) const;
  // One step of a trajectory summary, each part already clipped.
  struct StepText {
    std::string reasoning;  // the model's reasoning for the turn ("" when it sent none)
    std::string thought;    // the turn's visible text
    std::string action;     // the tool call
    std::string observation;
  };
  // Placeholders: step, reasoning, thought, action, observation.
  Result<std::string> TrajectoryStep(int step, const StepText& text) const;

 private:
  std::string dir_;
  std::string system_, rollout1_, rollout2_, issue_writer_, judge_, trajectory_step_;
  std::vector<config::CategoryPrompt> categories_;
  std::string hash_;
  std::string issue_tag_, judge_tag_;
};

// The name of the last closing tag ("</name>") in `text`, or "" if none.
std::string LastClosingTag(const std::string& text);

}  // namespace seragen::pipeline
