#include "seragen/demos/demo_source.h"

namespace seragen::demos {
namespace {

Result<DemoIssuePool> Labelled(Result<DemoIssuePool> pool, const char* source) {
  if (pool.ok()) pool->set_source(source);
  return pool;
}

}  // namespace

std::string BuiltinDemoPath(const std::string& prompts_dir) { return prompts_dir + "/demo_issues/builtin.jsonl"; }

Result<DemoIssuePool> LoadDemoPool(const DemoSourceOptions& options, const std::string& prompts_dir,
                                   const CommitMessageReader& commit_messages) {
  if (options.source == "file") return Labelled(DemoIssuePool::FromFile(options.file, options.repo_filter), "file");
  if (options.source == "commits" || options.source == "auto") {
    SG_ASSIGN_OR_RETURN(std::vector<std::string> messages, commit_messages());
    const std::size_t needed = options.source == "auto" ? options.min_commits : 1;
    auto pool = DemoIssuePool::FromCommitMessages(messages, needed);
    if (pool.ok() || options.source == "commits") return Labelled(std::move(pool), "commits");
  }
  return Labelled(DemoIssuePool::FromFile(BuiltinDemoPath(prompts_dir)), "builtin");
}

Result<DemoIssuePool> ReloadDemoPool(const std::string& recorded_source, const DemoSourceOptions& options,
                                     const std::string& prompts_dir) {
  if (recorded_source != "builtin" && recorded_source != "file") {
    return NotFoundError("the demonstrations of source '" + recorded_source + "' cannot be read again");
  }
  DemoSourceOptions recorded = options;
  recorded.source = recorded_source;
  return LoadDemoPool(recorded, prompts_dir,
                      [] { return Result<std::vector<std::string>>(NotFoundError("no commits")); });
}

}  // namespace seragen::demos
