#include "repo/copy_ownership.h"

#include <git2.h>
#include <sys/stat.h>

#include <cstdint>
#include <set>

#include "repo/confined_fs.h"
#include "repo/git_handles.h"
#include "repo/working_copy_ops.h"
#include "seragen/repo/working_copy_pool.h"

namespace seragen::repo {

using internal::GitStatus;

namespace {

// True when the index entry's content stat (mtime, size, inode) still
// matches `st` but its owner or ctime does not: a chown made it stale.
bool OnlyOwnershipStale(const git_index_entry& entry, const struct stat& st) {
  bool same_content_stat = entry.mtime.seconds == static_cast<int32_t>(st.st_mtim.tv_sec) &&
                           entry.mtime.nanoseconds == static_cast<uint32_t>(st.st_mtim.tv_nsec) &&
                           entry.file_size == static_cast<uint32_t>(st.st_size) &&
                           entry.ino == static_cast<uint32_t>(st.st_ino);
  if (!same_content_stat) return false;
  return entry.uid != st.st_uid || entry.gid != st.st_gid ||
         entry.ctime.seconds != static_cast<int32_t>(st.st_ctim.tv_sec) ||
         entry.ctime.nanoseconds != static_cast<uint32_t>(st.st_ctim.tv_nsec);
}

// chown changed ctime/uid/gid, which the index's stat cache compares: takes
// them over for the entries (all, or those named in `only`) whose mtime, size
// and inode still match, so the next status does not re-hash those files.
// True in `*changed` when the index was rewritten.
Status RefreshStatCache(const CopyPaths& copy, const std::set<std::string>* only, bool* changed) {
  *changed = false;
  SG_ASSIGN_OR_RETURN(internal::RepoPtr repo, internal::OpenCopyRepository(copy));
  git_index* raw = nullptr;
  int rc = git_repository_index(&raw, repo.get());
  if (rc != 0) return GitStatus(rc, "cannot open the index of " + copy.work_tree);
  internal::IndexPtr index(raw);
  std::string workdir = git_repository_workdir(repo.get());
  std::vector<git_index_entry> updates;
  auto consider = [&](const git_index_entry* entry) {
    struct stat st;
    if (entry == nullptr || GIT_INDEX_ENTRY_STAGE(entry) != 0) return;
    if (::lstat((workdir + entry->path).c_str(), &st) != 0 || !OnlyOwnershipStale(*entry, st)) return;
    git_index_entry updated = *entry;
    updated.uid = st.st_uid;
    updated.gid = st.st_gid;
    updated.ctime.seconds = static_cast<int32_t>(st.st_ctim.tv_sec);
    updated.ctime.nanoseconds = static_cast<uint32_t>(st.st_ctim.tv_nsec);
    updates.push_back(updated);
  };
  if (only == nullptr) {
    for (std::size_t i = 0, n = git_index_entrycount(index.get()); i < n; ++i) {
      consider(git_index_get_byindex(index.get(), i));
    }
  } else {
    for (const std::string& path : *only) consider(git_index_get_bypath(index.get(), path.c_str(), 0));
  }
  if (updates.empty()) return Status::Ok();
  for (const git_index_entry& updated : updates) {
    rc = git_index_add(index.get(), &updated);  // same path: replaces; copies the path
    if (rc != 0) return GitStatus(rc, std::string("cannot refresh '") + updated.path + "' in the index");
  }
  rc = git_index_write(index.get());
  if (rc != 0) return GitStatus(rc, "cannot write the index of " + copy.work_tree);
  *changed = true;
  return Status::Ok();
}

}  // namespace

Status AdoptOwnership(const CopyPaths& copy, unsigned uid, unsigned gid) {
  SG_RETURN_IF_ERROR(internal::CheckCopyIsReal(copy));
  // 1. Give everything in the work tree (its .git included) to uid:gid, never
  //    following a symlink. The authoritative git directory stays root's.
  SG_ASSIGN_OR_RETURN(internal::ConfinedDir root, internal::ConfinedDir::Open(copy.work_tree));
  SG_RETURN_IF_ERROR(root.ChownAll(uid, gid));
  if (!copy.tmp_dir.empty()) {
    // Empty, made by Prepare: only the directory itself changes hands.
    SG_ASSIGN_OR_RETURN(internal::ConfinedDir tmp, internal::ConfinedDir::Open(copy.tmp_dir));
    SG_RETURN_IF_ERROR(tmp.ChownAll(uid, gid));
  }
  // 2. Keep the stat cache valid for the ownership change.
  bool changed = false;
  SG_RETURN_IF_ERROR(RefreshStatCache(copy, nullptr, &changed));
  if (!changed) return Status::Ok();  // the agent's index copy is already equal
  // The agent's index mirrors the authoritative one, stat cache included.
  return internal::CopyIndexToAgentGitDir(copy, /*chown=*/true, uid, gid);
}

namespace internal {

Status AdoptKnownOwner(const CopyPaths& copy, unsigned uid, unsigned gid) {
  SG_RETURN_IF_ERROR(CheckCopyIsReal(copy));
  // The root directory itself (the pool's, trusted), then the disposable .git
  // that Prepare rebuilt, then the lease's empty /tmp.
  struct stat st;
  if (::lstat(copy.work_tree.c_str(), &st) != 0) return IoError("cannot stat " + copy.work_tree);
  if ((st.st_uid != uid || st.st_gid != gid) && ::lchown(copy.work_tree.c_str(), uid, gid) != 0) {
    return IoError("cannot chown " + copy.work_tree);
  }
  SG_ASSIGN_OR_RETURN(ConfinedDir agent_git, ConfinedDir::Open(copy.work_tree + "/.git"));
  SG_RETURN_IF_ERROR(agent_git.ChownAll(uid, gid));
  if (copy.tmp_dir.empty()) return Status::Ok();
  SG_ASSIGN_OR_RETURN(ConfinedDir tmp, ConfinedDir::Open(copy.tmp_dir));
  return tmp.ChownAll(uid, gid);
}

Status GiveRestoredPaths(const CopyPaths& copy, const std::vector<std::string>& paths, unsigned uid, unsigned gid) {
  if (paths.empty()) return Status::Ok();
  SG_ASSIGN_OR_RETURN(ConfinedDir root, ConfinedDir::Open(copy.work_tree));
  for (const std::string& path : paths) SG_RETURN_IF_ERROR(root.ChownPath(path, uid, gid));
  std::set<std::string> only(paths.begin(), paths.end());
  bool changed = false;
  return RefreshStatCache(copy, &only, &changed);
}

}  // namespace internal

}  // namespace seragen::repo
