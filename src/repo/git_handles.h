// Internal to the repo module: owning RAII wrappers for libgit2 handles, the
// one-time library setup, and conversion of libgit2 errors into Status.
// libgit2 headers never leave src/repo/.
#pragma once

#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

#include <memory>
#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/base/status.h"
#include "seragen/repo/copy_paths.h"

namespace seragen::repo::internal {

// Initialises libgit2 once per process (thread-safe, idempotent) and isolates it
// from host configuration: the global, XDG and system config search paths are
// emptied so ~/.gitconfig or /etc/gitconfig cannot change diffs or checkouts,
// and owner validation is disabled (libgit2 runs no hooks or filter commands).
void EnsureLibgit2();

// Status for a failed libgit2 call: "<what>: <libgit2 message>" with a code
// derived from the libgit2 error (GIT_ENOTFOUND -> kNotFound, ...).
Status GitStatus(int error, std::string_view what);

template <typename T, void (*Free)(T*)>
struct GitDeleter {
  void operator()(T* p) const {
    if (p != nullptr) Free(p);
  }
};
template <typename T, void (*Free)(T*)>
using GitPtr = std::unique_ptr<T, GitDeleter<T, Free>>;

using RepoPtr = GitPtr<git_repository, git_repository_free>;
using ObjectPtr = GitPtr<git_object, git_object_free>;
using CommitPtr = GitPtr<git_commit, git_commit_free>;
using TreePtr = GitPtr<git_tree, git_tree_free>;
using TreeEntryPtr = GitPtr<git_tree_entry, git_tree_entry_free>;
using BlobPtr = GitPtr<git_blob, git_blob_free>;
using IndexPtr = GitPtr<git_index, git_index_free>;
using DiffPtr = GitPtr<git_diff, git_diff_free>;
using OdbPtr = GitPtr<git_odb, git_odb_free>;
using OdbObjectPtr = GitPtr<git_odb_object, git_odb_object_free>;
using StatusListPtr = GitPtr<git_status_list, git_status_list_free>;
using ReferencePtr = GitPtr<git_reference, git_reference_free>;

// git_buf that frees itself.
struct OwnedBuf {
  git_buf buf = GIT_BUF_INIT;
  OwnedBuf() = default;
  OwnedBuf(const OwnedBuf&) = delete;
  OwnedBuf& operator=(const OwnedBuf&) = delete;
  ~OwnedBuf() { git_buf_dispose(&buf); }
  std::string str() const { return buf.ptr == nullptr ? std::string() : std::string(buf.ptr, buf.size); }
};

// Opens exactly the repository at `path` (a work tree or a .git/bare dir); never
// searches parent directories, so a copy whose .git was deleted is an error
// instead of silently resolving to an enclosing repository.
Result<RepoPtr> OpenRepositoryExact(const std::string& path);

// Opens a working copy's authoritative git directory `copy.git_dir` and forces
// its work directory to `copy.work_tree`. Nothing under the work tree (its
// `.git` included) is read for configuration: core.worktree, core.bare and
// everything else come from `copy.git_dir`/config, which only host code
// writes. FailedPrecondition when either path is not a real directory.
Result<RepoPtr> OpenCopyRepository(const CopyPaths& copy);

// Parses a full 40-hex object id.
Result<git_oid> ParseOid(std::string_view hex);
std::string OidHex(const git_oid& oid);

// The commit `oid` and its tree, with a clear error naming the commit.
Result<CommitPtr> LookupCommit(git_repository* repo, const git_oid& oid);
Result<TreePtr> CommitTree(git_repository* repo, std::string_view commit_hex);

// Absolute path of the repository's object directory (common dir + "objects").
std::string ObjectsDir(git_repository* repo);

}  // namespace seragen::repo::internal
