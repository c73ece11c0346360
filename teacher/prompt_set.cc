#include "teacher/prompt_set.h"

#include <yaml-cpp/yaml.h>

#include "seragen/base/file_util.h"
#include "seragen/base/template.h"

namespace seragen::teacher {
namespace {

// Every form `text` can render to, as matchers: each combination of its
// sections kept or left out (the first four section names; any others are
// left out), every section kept first. A template the renderer would refuse
// is matched as written.
std::vector<std::shared_ptr<const TemplateMatcher>> MatchersFor(const std::string& text) {
  std::vector<std::string> sections = TemplateSectionNames(text);
  if (sections.size() > 4) sections.resize(4);
  std::vector<std::shared_ptr<const TemplateMatcher>> out;
  for (unsigned mask = 1u << sections.size(); mask-- > 0;) {
    auto lookup = [&](std::string_view name) -> std::optional<bool> {
      for (std::size_t i = 0; i < sections.size(); ++i) {
        if (sections[i] == name) return ((mask >> i) & 1u) != 0;
      }
      return false;
    };
    Result<std::string> form = ResolveTemplateSections(text, lookup);
    out.push_back(std::make_shared<TemplateMatcher>(form.ok() ? *form : text));
  }
  return out;
}

}  // namespace

std::string_view RequestKindName(RequestKind kind) {
  switch (kind) {
    case RequestKind::kRollout1: return "rollout1";
    case RequestKind::kRollout2: return "rollout2";
    case RequestKind::kIssueWriter: return "issue_writer";
    case RequestKind::kJudge: return "judge";
    case RequestKind::kUnknownAgent: return "unknown_agent";
    case RequestKind::kUnknownChat: return "unknown_chat";
  }
  return "unknown_chat";
}

Result<std::vector<Category>> ParseCategories(const std::string& yaml_text, const std::string& name) {
  std::vector<Category> out;
  try {
    YAML::Node root = YAML::Load(yaml_text);
    YAML::Node list = root["categories"];
    if (!list || !list.IsSequence()) return ParseError(name + ": 'categories' must be a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node& entry = list[i];
      const std::string where = name + ": categories[" + std::to_string(i) + "]";
      if (!entry.IsMap() || !entry["topic"] || !entry["prompt"]) {
        return ParseError(where + ": needs 'topic' and 'prompt'");
      }
      out.push_back({entry["topic"].as<std::string>(), entry["prompt"].as<std::string>()});
    }
  } catch (const YAML::Exception& e) {
    return ParseError(name + ": " + e.what());
  }
  return out;
}

PromptSet PromptSet::FromTexts(const std::string& rollout1, const std::string& rollout2,
                               const std::string& issue_writer, const std::string& judge,
                               std::vector<Category> categories) {
  PromptSet set;
  set.rollout1_ = MatchersFor(rollout1);
  set.rollout2_ = MatchersFor(rollout2);
  set.issue_writer_ = MatchersFor(issue_writer);
  set.judge_ = MatchersFor(judge);
  set.categories_ = std::move(categories);
  set.issue_tag_ = set.issue_writer_.front()->LastClosingTag();
  set.judge_tag_ = set.judge_.front()->LastClosingTag();
  return set;
}

Result<PromptSet> PromptSet::Load(const std::string& dir) {
  auto read = [&](const char* file) -> Result<std::string> {
    auto text = ReadFile(dir + "/" + file);
    if (!text.ok()) return text.status().WithContext("teacher prompts");
    return text;
  };
  SG_ASSIGN_OR_RETURN(std::string r1, read("rollout1.md"));
  SG_ASSIGN_OR_RETURN(std::string r2, read("rollout2.md"));
  SG_ASSIGN_OR_RETURN(std::string iw, read("issue_writer.md"));
  SG_ASSIGN_OR_RETURN(std::string jd, read("judge.md"));
  SG_ASSIGN_OR_RETURN(std::string cats_text, read("categories.yaml"));
  SG_ASSIGN_OR_RETURN(auto cats, ParseCategories(cats_text, dir + "/categories.yaml"));
  return FromTexts(r1, r2, iw, jd, std::move(cats));
}

RequestInfo PromptSet::Classify(const ChatRequest& request) const {
  RequestInfo info;
  const bool has_tools = !request.tools.empty();
  struct Candidate {
    const TemplateMatcher* matcher;
    RequestKind kind;
  };
  // Agent templates only when tools are offered; tool-less ones otherwise
  // first (a judge prompt quotes a rollout-1 problem statement).
  std::vector<Candidate> order;
  auto add = [&order](const Matchers& forms, RequestKind kind) {
    for (const auto& m : forms) order.push_back({m.get(), kind});
  };
  if (has_tools) {
    add(rollout1_, RequestKind::kRollout1);
    add(rollout2_, RequestKind::kRollout2);
  } else {
    add(judge_, RequestKind::kJudge);
    add(issue_writer_, RequestKind::kIssueWriter);
  }
  for (const Candidate& c : order) {
    for (const MessageIn& m : request.messages) {
      if (m.role != "user" && m.role != "system" && m.role != "developer") continue;
      auto values = c.matcher->Match(m.content);
      if (values) {
        info.kind = c.kind;
        info.values = std::move(*values);
        break;
      }
    }
    if (info.kind != RequestKind::kUnknownChat) break;
  }
  if (info.kind == RequestKind::kUnknownChat) {
    // Fallback: a prompt that was split across messages or lightly edited
    // still carries the template's longest literal stretch.
    for (const Candidate& c : order) {
      const std::string& anchor = c.matcher->LongestAnchor();
      if (anchor.size() < 24) continue;
      for (const MessageIn& m : request.messages) {
        if (m.role == "assistant" || m.role == "tool") continue;
        if (CollapseWhitespace(m.content).find(anchor) != std::string::npos) {
          info.kind = c.kind;
          break;
        }
      }
      if (info.kind != RequestKind::kUnknownChat) break;
    }
  }
  if (info.kind == RequestKind::kUnknownChat && has_tools) info.kind = RequestKind::kUnknownAgent;
  if (info.kind == RequestKind::kRollout1) {
    auto topic = info.values.find("category_topic");  // optional placeholder
    if (topic != info.values.end()) {
      const std::string wanted = CollapseWhitespace(topic->second);
      for (std::size_t i = 0; i < categories_.size() && info.category_index < 0; ++i) {
        if (CollapseWhitespace(categories_[i].topic) == wanted) info.category_index = static_cast<int>(i);
      }
    }
    auto it = info.values.find("category_prompt");
    if (it != info.values.end() && info.category_index < 0) {
      const std::string wanted = CollapseWhitespace(it->second);
      for (std::size_t i = 0; i < categories_.size(); ++i) {
        if (CollapseWhitespace(categories_[i].prompt) == wanted) {
          info.category_index = static_cast<int>(i);
          break;
        }
      }
    }
  }
  return info;
}

}  // namespace seragen::teacher
