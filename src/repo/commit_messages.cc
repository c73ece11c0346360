// ReadCommitMessages: a bounded `git log --no-merges --format=%B` through
// libgit2's revision walk.
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/repo/commit_messages.h"

#include "repo/git_handles.h"

namespace seragen::repo {

using internal::GitStatus;

namespace {

using RevwalkPtr = internal::GitPtr<git_revwalk, git_revwalk_free>;

Result<RevwalkPtr> WalkFrom(git_repository* repo, const git_oid& start) {
  git_revwalk* raw = nullptr;
  int rc = git_revwalk_new(&raw, repo);
  if (rc != 0) return GitStatus(rc, "cannot start a revision walk");
  RevwalkPtr walk(raw);
  // No sorting: any sort order makes libgit2 read the whole history before
  // the first commit comes out; unsorted, each step reads one more commit.
  rc = git_revwalk_push(walk.get(), &start);
  if (rc != 0) return GitStatus(rc, "cannot walk the history of " + internal::OidHex(start));
  return walk;
}

}  // namespace

Result<std::vector<std::string>> ReadCommitMessages(const std::string& git_dir, std::string_view commit,
                                                    const CommitMessageLimits& limits, CommitMessageStats* stats) {
  SG_ASSIGN_OR_RETURN(internal::RepoPtr owned, internal::OpenRepositoryExact(git_dir));
  git_repository* repo = owned.get();
  SG_ASSIGN_OR_RETURN(git_oid start, internal::ParseOid(commit));
  SG_RETURN_IF_ERROR(internal::LookupCommit(repo, start).status());
  SG_ASSIGN_OR_RETURN(RevwalkPtr walk, WalkFrom(repo, start));
  CommitMessageStats local;
  CommitMessageStats& st = stats != nullptr ? *stats : local;
  std::vector<std::string> messages;
  std::size_t total = 0, looked_at = 0, walked = 0;
  git_oid oid;
  while (looked_at < limits.max_commits && walked < limits.max_walked) {
    int rc = git_revwalk_next(&oid, walk.get());
    if (rc == GIT_ITEROVER) break;
    if (rc != 0) return GitStatus(rc, "cannot walk the history of " + std::string(commit));
    ++walked;
    ++st.walked;
    SG_ASSIGN_OR_RETURN(internal::CommitPtr c, internal::LookupCommit(repo, oid));
    if (git_commit_parentcount(c.get()) > 1) continue;
    ++looked_at;
    const char* text = git_commit_message(c.get());
    std::size_t size = text == nullptr ? 0 : std::strlen(text);
    if (size > limits.max_message_bytes) {
      ++st.skipped_long;
      continue;
    }
    if (total + size > limits.max_total_bytes) {
      st.total_reached = true;
      break;
    }
    total += size;
    messages.emplace_back(text, size);
  }
  return messages;
}

}  // namespace seragen::repo
