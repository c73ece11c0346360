// Demonstration issues: examples of style for the issue writer (docs/DESIGN.md §1.3),
// from the built-in examples, a user file, or the repository's own commits.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/base/rng.h"

namespace seragen::demos {

struct DemoIssue {
  std::string id;
  std::string text;
  std::string language;  // the reported project's language (the "language" member), "" when unknown
};

class DemoIssuePool {
 public:
  // `path` ending in .jsonl: one JSON value per line; .json: one array;
  // anything else: plain text with issues separated by lines holding only
  // "---". A JSON value is a string, or an object with "text", or
  // "problem_statement" (the SWE-bench layout), or "title" and "body", and an
  // optional "id" (SWE-bench: "instance_id"). `repo_filter` non-empty keeps
  // only objects whose "repo" equals it. Empty pools and malformed entries
  // are errors naming the file and the line/entry.
  static Result<DemoIssuePool> FromFile(const std::string& path, const std::string& repo_filter = "");
  // Commit messages (subject + body); merges, reverts and short ones are
  // skipped. kNotFound when fewer than `min_usable` usable messages remain.
  static Result<DemoIssuePool> FromCommitMessages(const std::vector<std::string>& messages, std::size_t min_usable = 1);
  static DemoIssuePool FromIssues(std::vector<DemoIssue> issues);

  // Deterministic given the Rng state. The pool must not be empty. With a
  // `language` (a callgraph language name; "tsx" counts as "typescript") that
  // some issues have, a uniform draw among those: the issue writer then sees
  // a report about a project in the repository's language.
  const DemoIssue& Pick(Rng& rng, std::string_view language = "") const;
  std::size_t size() const { return issues_.size(); }
  const std::vector<DemoIssue>& issues() const { return issues_; }
  // Where the issues came from: "builtin", "file" or "commits" (set by the loader).
  const std::string& source() const { return source_; }
  void set_source(std::string source) { source_ = std::move(source); }

 private:
  std::vector<DemoIssue> issues_;
  std::string source_;
};

}  // namespace seragen::demos
