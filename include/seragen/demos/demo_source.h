// Which demonstration issues a run shows its issue writer (docs/DESIGN.md
// §1.3): the one policy, used when a run starts and again when a report looks
// up the demonstration a task was shown.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/demos/demo_issues.h"

namespace seragen::demos {

struct DemoSourceOptions {
  std::string source = "builtin";  // auto | builtin | file | commits (issue.demos.source)
  std::string file;                // source "file": the issues file
  std::string repo_filter;         // source "file": keep only objects with this "repo"
  std::size_t min_commits = 20;    // source "auto": usable commit messages needed to prefer them
};

// The repositories' commit messages; called only when the source asks for them.
using CommitMessageReader = std::function<Result<std::vector<std::string>>()>;

// PROMPTS_DIR/demo_issues/builtin.jsonl.
std::string BuiltinDemoPath(const std::string& prompts_dir);

// "file": the file (an error when unreadable or empty). "commits": the commit
// messages (an error when none is usable). "auto": the commit messages when at
// least `min_commits` are usable, else the built-in issues. Anything else: the
// built-in issues. The pool's source() says where its issues came from:
// "file", "commits" or "builtin".
Result<DemoIssuePool> LoadDemoPool(const DemoSourceOptions& options, const std::string& prompts_dir,
                                   const CommitMessageReader& commit_messages);

// The pool a run's recorded source (a pool's source()) names, read again
// after the run with the run's options: "builtin" and "file" only; "commits"
// would need the repositories and anything else names no pool (NotFound).
Result<DemoIssuePool> ReloadDemoPool(const std::string& recorded_source, const DemoSourceOptions& options,
                                     const std::string& prompts_dir);

}  // namespace seragen::demos
