#include "seragen/pipeline/run_demos.h"

#include <string>
#include <vector>

#include "seragen/base/log.h"
#include "seragen/repo/commit_messages.h"

namespace seragen::pipeline {
namespace {

// The commit messages of each planned repository at its planned commit,
// bounded per message and in total over all repositories.
Result<std::vector<std::string>> PlannedCommitMessages(std::size_t max_commits, const PreparedRun& run) {
  std::vector<std::string> all;
  std::size_t total = 0;
  repo::CommitMessageStats stats;
  for (const auto& [name, repo] : run.repos) {
    for (const auto& p : run.plan) {
      if (p.repo != name) continue;
      repo::CommitMessageLimits limits;
      limits.max_commits = max_commits;
      limits.max_total_bytes = repo::kMaxCommitMessagesTotalBytes - total;
      auto msgs = repo::ReadCommitMessages(repo->git_dir(), p.commit, limits, &stats);
      if (!msgs.ok()) return msgs.status().WithContext("commit messages of repos." + name);
      for (std::string& m : *msgs) {
        total += m.size();
        all.push_back(std::move(m));
      }
      break;
    }
  }
  if (stats.skipped_long > 0 || stats.total_reached) {
    log::Logger("run").Info("demonstration issues: {} commit message(s) over {} bytes skipped{}", stats.skipped_long,
                            repo::kMaxCommitMessageBytes,
                            stats.total_reached ? ", and reading stopped at the total of all messages" : "");
  }
  return all;
}

}  // namespace

Result<demos::DemoIssuePool> LoadRunDemos(const demos::DemoSourceOptions& options, std::size_t max_commits,
                                          const PreparedRun& run) {
  SG_ASSIGN_OR_RETURN(demos::DemoIssuePool pool, demos::LoadDemoPool(options, run.prompts_dir, [&] {
                        return PlannedCommitMessages(max_commits, run);
                      }));
  log::Logger("run").Info("demonstration issues: {} from {} (issue.demos.source: {})", pool.size(), pool.source(),
                          options.source);
  return pool;
}

}  // namespace seragen::pipeline
