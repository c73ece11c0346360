// PromptSet: the project's prompt files, loaded so the teacher can recognise
// which kind of request it got and read the parameters back out of it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "teacher/chat_request.h"
#include "teacher/template_matcher.h"

namespace seragen::teacher {

enum class RequestKind { kRollout1, kRollout2, kIssueWriter, kJudge, kUnknownAgent, kUnknownChat };

std::string_view RequestKindName(RequestKind kind);

struct Category {
  std::string topic;
  std::string prompt;
};

// What a request is, with the placeholder values recovered from it.
struct RequestInfo {
  RequestKind kind = RequestKind::kUnknownChat;
  std::map<std::string, std::string> values;
  int category_index = -1;  // rollout 1: index of the matched category prompt
};

class PromptSet {
 public:
  // Reads rollout1.md, rollout2.md, issue_writer.md, judge.md and
  // categories.yaml from `dir`. Errors name the missing or malformed file.
  static Result<PromptSet> Load(const std::string& dir);

  // Builds from texts (for tests). `categories` may be empty.
  static PromptSet FromTexts(const std::string& rollout1, const std::string& rollout2, const std::string& issue_writer,
                             const std::string& judge, std::vector<Category> categories);

  // Classifies by matching the templates against the user/system messages:
  // a full template match first; then the template's longest literal anchor.
  // A template with sections ("{{#test_command}}...{{/test_command}}") is
  // matched in each form it can render to, with every section kept first; the
  // values then include those read inside kept sections.
  RequestInfo Classify(const ChatRequest& request) const;

  const std::vector<Category>& categories() const { return categories_; }
  // Output tag names the issue-writer and judge prompts ask for ("" if the
  // prompt does not show one).
  const std::string& issue_tag() const { return issue_tag_; }
  const std::string& judge_tag() const { return judge_tag_; }

 private:
  // One matcher per form of the template (see Classify), the fullest first.
  using Matchers = std::vector<std::shared_ptr<const TemplateMatcher>>;
  Matchers rollout1_, rollout2_, issue_writer_, judge_;
  std::vector<Category> categories_;
  std::string issue_tag_, judge_tag_;
};

// Parses categories.yaml text ("categories: [{topic, prompt}, ...]").
Result<std::vector<Category>> ParseCategories(const std::string& yaml_text, const std::string& name);

}  // namespace seragen::teacher
