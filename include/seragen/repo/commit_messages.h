// Commit messages of a repository's history, the source of demonstration
// issues: read through libgit2 with bounds, so no git program runs and
// nothing of the repository's configuration (log.showSignature, gpg.program,
// ...) is run.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::repo {

// A message longer than this is skipped rather than cut: demonstration issues
// are examples of style, and one cut off mid-sentence would teach the issue
// writer to stop mid-sentence. Long enough for any hand-written commit.
inline constexpr std::size_t kMaxCommitMessageBytes = 16 * 1024;
// All messages returned together; reading stops once the next message would
// pass it. 500 commits of a typical 300-byte message take a tenth of it.
inline constexpr std::size_t kMaxCommitMessagesTotalBytes = 1024 * 1024;
// Commits visited (merges and skipped messages included) before the walk
// stops, whatever max_commits says: a history of a million merges costs a
// bounded walk.
inline constexpr std::size_t kMaxCommitsWalked = 20'000;

struct CommitMessageLimits {
  std::size_t max_commits = 500;  // non-merge commits whose message is looked at
  std::size_t max_message_bytes = kMaxCommitMessageBytes;
  std::size_t max_total_bytes = kMaxCommitMessagesTotalBytes;
  std::size_t max_walked = kMaxCommitsWalked;
};

// What ReadCommitMessages returned and what it left out (added to, so one
// value can sum several calls).
struct CommitMessageStats {
  std::size_t walked = 0;        // commits visited, merges included
  std::size_t skipped_long = 0;  // messages over max_message_bytes
  bool total_reached = false;    // stopped at max_total_bytes
};

// Messages of the non-merge commits reachable from `commit` (40-hex) in the
// repository whose git directory is `git_dir` (Repository::git_dir()), in
// walk order from `commit` (a commit before its parents along each line of
// history; not sorted by date, which would make libgit2 read the whole
// history first), each as stored (subject, blank line, body; libgit2
// drops leading newlines and ends a message at a NUL byte), within `limits`.
// `stats` (optional) says what was left out. NotFound when `commit` is not a
// commit there; other codes for an unreadable repository.
Result<std::vector<std::string>> ReadCommitMessages(const std::string& git_dir, std::string_view commit,
                                                    const CommitMessageLimits& limits,
                                                    CommitMessageStats* stats = nullptr);

}  // namespace seragen::repo
