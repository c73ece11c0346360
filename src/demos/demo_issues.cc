#include "seragen/demos/demo_issues.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/strings.h"
#include "seragen/base/utf8.h"

namespace seragen::demos {
namespace {

// An object's string member, or "" when absent or not a string.
std::string StringMember(const nlohmann::json& v, const char* key) {
  auto it = v.find(key);
  return it != v.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// nullopt: the entry is filtered out by `repo_filter`.
Result<std::optional<DemoIssue>> FromJsonValue(const nlohmann::json& v, const std::string& where,
                                               const std::string& repo_filter) {
  if (!repo_filter.empty() && (!v.is_object() || StringMember(v, "repo") != repo_filter)) {
    return std::optional<DemoIssue>();
  }
  DemoIssue issue;
  if (v.is_string()) {
    issue.text = v.get<std::string>();
  } else if (v.is_object()) {
    if (v.contains("text") && v["text"].is_string()) {
      issue.text = v["text"].get<std::string>();
    } else if (v.contains("problem_statement") && v["problem_statement"].is_string()) {
      issue.text = v["problem_statement"].get<std::string>();
      issue.id = StringMember(v, "instance_id");
    } else if (v.contains("body") && v["body"].is_string()) {
      std::string title = v.contains("title") && v["title"].is_string() ? v["title"].get<std::string>() : "";
      issue.text = title.empty() ? v["body"].get<std::string>() : title + "\n\n" + v["body"].get<std::string>();
    } else {
      return ParseError(where + ": an issue object needs a string 'text', 'problem_statement' or 'title' and 'body'");
    }
    if (v.contains("id") && v["id"].is_string()) issue.id = v["id"].get<std::string>();
    issue.language = StringMember(v, "language");
  } else {
    return ParseError(where + ": expected a string or an object with 'text'");
  }
  issue.text = RepairUtf8(std::string(TrimLineSpace(issue.text)));
  if (issue.text.empty()) return ParseError(where + ": empty issue text");
  if (issue.id.empty()) issue.id = ContentId({issue.text}, 12);
  return std::optional<DemoIssue>(std::move(issue));
}

}  // namespace

DemoIssuePool DemoIssuePool::FromIssues(std::vector<DemoIssue> issues) {
  DemoIssuePool pool;
  pool.issues_ = std::move(issues);
  return pool;
}

Result<DemoIssuePool> DemoIssuePool::FromFile(const std::string& path, const std::string& repo_filter) {
  SG_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::vector<DemoIssue> issues;
  if (path.ends_with(".jsonl")) {
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (TrimLineSpace(line).empty()) continue;
      nlohmann::json v;
      SG_RETURN_IF_ERROR(CheckJsonDepth(line, path + ":" + std::to_string(n)));
      try {
        v = nlohmann::json::parse(line);
      } catch (const std::exception& e) {
        return ParseError(path + ":" + std::to_string(n) + ": not valid JSON");
      }
      SG_ASSIGN_OR_RETURN(auto issue, FromJsonValue(v, path + ":" + std::to_string(n), repo_filter));
      if (issue) issues.push_back(std::move(*issue));
    }
  } else if (path.ends_with(".json")) {
    nlohmann::json v;
    SG_RETURN_IF_ERROR(CheckJsonDepth(text, path));
    try {
      v = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
      return ParseError(path + ": not valid JSON");
    }
    if (!v.is_array()) return ParseError(path + ": expected a JSON array of issues");
    for (std::size_t i = 0; i < v.size(); ++i) {
      SG_ASSIGN_OR_RETURN(auto issue, FromJsonValue(v[i], path + ": entry " + std::to_string(i), repo_filter));
      if (issue) issues.push_back(std::move(*issue));
    }
  } else {
    std::istringstream in(text);
    std::string line, current;
    auto flush = [&] {
      std::string t(TrimLineSpace(current));
      if (!t.empty()) issues.push_back({ContentId({t}, 12), RepairUtf8(t)});
      current.clear();
    };
    while (std::getline(in, line)) {
      if (TrimLineSpace(line) == "---") {
        flush();
      } else {
        current += line + "\n";
      }
    }
    flush();
  }
  if (issues.empty()) {
    return InvalidArgumentError(path + ": no demonstration issues found" +
                                (repo_filter.empty() ? "" : " with \"repo\": \"" + repo_filter + "\""));
  }
  return FromIssues(std::move(issues));
}

Result<DemoIssuePool> DemoIssuePool::FromCommitMessages(const std::vector<std::string>& messages,
                                                        std::size_t min_usable) {
  std::vector<DemoIssue> issues;
  for (const std::string& raw : messages) {
    std::string m(TrimLineSpace(raw));
    if (m.size() < 60) continue;  // one-liners say too little about style
    if (m.rfind("Merge ", 0) == 0 || m.rfind("Revert ", 0) == 0) continue;
    issues.push_back({ContentId({m}, 12), RepairUtf8(m)});
  }
  if (issues.empty() || issues.size() < min_usable) {
    return NotFoundError(std::to_string(issues.size()) + " commit message(s) are descriptive enough to serve as " +
                         "demonstration issues (at least " + std::to_string(std::max<std::size_t>(min_usable, 1)) +
                         " needed)");
  }
  return FromIssues(std::move(issues));
}

const DemoIssue& DemoIssuePool::Pick(Rng& rng, std::string_view language) const {
  if (language == "tsx") language = "typescript";
  std::vector<std::size_t> same;
  if (!language.empty()) {
    for (std::size_t i = 0; i < issues_.size(); ++i) {
      if (issues_[i].language == language) same.push_back(i);
    }
  }
  if (same.empty()) return issues_[static_cast<std::size_t>(rng.Uniform(issues_.size()))];
  return issues_[same[static_cast<std::size_t>(rng.Uniform(same.size()))]];
}

}  // namespace seragen::demos
