#include "seragen/repo/checkout_check.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "repo/confined_fs.h"
#include "repo/git_handles.h"
#include "repo/working_copy_ops.h"
#include "seragen/base/utf8.h"

namespace seragen::repo {

using internal::GitStatus;

namespace {

constexpr std::size_t kEchoedPathBytes = 200;

struct TreeScan {
  std::string problem;  // first path over a limit, with the reason
  std::vector<std::string> gitlinks;
};

int ScanEntry(const char* root, const git_tree_entry* entry, void* payload) {
  auto* scan = static_cast<TreeScan*>(payload);
  std::string_view name = git_tree_entry_name(entry);
  std::string path = std::string(root) + std::string(name);
  if (name.size() > kMaxPathComponentBytes) {
    scan->problem = "path '" + ClipEcho(path, kEchoedPathBytes) + "' has a name of " + std::to_string(name.size()) +
                    " bytes, more than the " + std::to_string(kMaxPathComponentBytes) + " a file system allows";
  } else if (path.size() > kMaxCheckoutPathBytes) {
    scan->problem = "path '" + ClipEcho(path, kEchoedPathBytes) + "' is " + std::to_string(path.size()) +
                    " bytes long, more than the " + std::to_string(kMaxCheckoutPathBytes) + " a working copy can hold";
  }
  if (!scan->problem.empty()) return -1;  // stops the walk
  if (git_tree_entry_filemode(entry) == GIT_FILEMODE_COMMIT) scan->gitlinks.push_back(std::move(path));
  return 0;
}

std::string LastGitError() {
  const git_error* e = git_error_last();
  return ClipEcho(e != nullptr && e->message != nullptr ? e->message : "libgit2 error", 300);
}

// A scratch copy (empty work tree, HEAD detached at `commit`) of `source`.
Result<internal::RepoPtr> MakeScratchCopy(git_repository* source, const git_oid& commit, const CopyPaths& copy) {
  SG_RETURN_IF_ERROR(internal::MakeEmptyCopy(copy, internal::ObjectsDir(source)));
  SG_ASSIGN_OR_RETURN(internal::RepoPtr repo, internal::OpenCopyRepository(copy));
  int rc = git_repository_set_head_detached(repo.get(), &commit);
  if (rc != 0) return GitStatus(rc, "cannot detach HEAD of " + copy.git_dir);
  return repo;
}

// libgit2's own refusals, without writing the files: a dry run of the whole
// checkout validates every path (no ".git" component in any case, ...); then only .gitmodules and the gitlinks are
// really checked out, since libgit2 reads .gitmodules for every gitlink it writes.
Status TrialCheckout(git_repository* source, const git_oid& commit, const std::vector<std::string>& gitlinks,
                     const std::string& scratch_dir) {
  SG_ASSIGN_OR_RETURN(internal::RepoPtr repo,
                      MakeScratchCopy(source, commit, CopyPaths{scratch_dir + "/work", scratch_dir + "/git"}));
  SG_ASSIGN_OR_RETURN(internal::CommitPtr c, internal::LookupCommit(repo.get(), commit));
  auto* target = reinterpret_cast<git_object*>(c.get());
  git_checkout_options dry = GIT_CHECKOUT_OPTIONS_INIT;
  dry.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DRY_RUN;
  if (git_checkout_tree(repo.get(), target, &dry) != 0) {
    return FailedPreconditionError("libgit2 cannot check it out: " + LastGitError());
  }
  if (gitlinks.empty()) return Status::Ok();
  std::vector<char*> paths{const_cast<char*>(".gitmodules")};
  for (const std::string& p : gitlinks) paths.push_back(const_cast<char*>(p.c_str()));
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
  options.paths.strings = paths.data();
  options.paths.count = paths.size();
  if (git_checkout_tree(repo.get(), target, &options) == 0) return Status::Ok();
  return FailedPreconditionError("its submodules cannot be checked out: .gitmodules is refused (" + LastGitError() +
                                 "); seragen never runs submodule commands or fetches submodules");
}

}  // namespace

Status CheckCheckoutable(const std::string& git_dir, std::string_view commit, const std::string& scratch_parent) {
  SG_ASSIGN_OR_RETURN(internal::RepoPtr repo, internal::OpenRepositoryExact(git_dir));
  SG_ASSIGN_OR_RETURN(internal::TreePtr tree, internal::CommitTree(repo.get(), commit));
  TreeScan scan;
  int rc = git_tree_walk(tree.get(), GIT_TREEWALK_PRE, &ScanEntry, &scan);
  const std::string at = " at commit " + std::string(commit.substr(0, 12));
  if (!scan.problem.empty()) return FailedPreconditionError(scan.problem + at + "; a working copy cannot be made");
  if (rc != 0) return GitStatus(rc, "cannot walk the tree of commit " + std::string(commit));
  SG_ASSIGN_OR_RETURN(git_oid oid, internal::ParseOid(commit));
  std::string scratch_dir = scratch_parent + "/.checkout-check-XXXXXX";
  if (::mkdtemp(scratch_dir.data()) == nullptr) {
    return IoError("cannot make a scratch directory in '" + scratch_parent + "': " + std::strerror(errno));
  }
  Status tried = TrialCheckout(repo.get(), oid, scan.gitlinks, scratch_dir);
  Status removed = internal::RemoveTreeConfined(scratch_dir);
  if (!tried.ok())
    return tried.code() == StatusCode::kFailedPrecondition
               ? tried.WithContext("commit " + std::string(commit.substr(0, 12)))
               : tried;
  return removed;
}

}  // namespace seragen::repo
