#include "repo/working_copy_ops.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <optional>
#include <vector>

#include "repo/confined_fs.h"
#include "repo/git_handles.h"
#include "seragen/base/atomic_file.h"
#include "seragen/base/file_util.h"
#include "seragen/base/unique_fd.h"
#include "seragen/repo/working_copy_pool.h"

namespace seragen::repo {

namespace fs = std::filesystem;
using internal::GitStatus;

namespace {

Status DetachHead(git_repository* repo, const std::string& copy_path, const git_oid& oid) {
  int rc = git_repository_set_head_detached(repo, &oid);
  if (rc != 0) return GitStatus(rc, "cannot detach HEAD of " + copy_path);
  return Status::Ok();
}

// `paths` as a libgit2 string array; it points into `paths` and `*storage`,
// which must outlive it.
git_strarray PathArray(const std::vector<std::string>& paths, std::vector<char*>* storage) {
  for (const std::string& p : paths) storage->push_back(const_cast<char*>(p.c_str()));
  return git_strarray{storage->data(), storage->size()};
}

// Forced checkout of the whole base tree, removing untracked and ignored files.
// `paths` (optional) limits it to those exact paths.
Status CheckoutBase(git_repository* repo, const std::string& copy_path, std::string_view base_commit,
                    const std::vector<std::string>* paths = nullptr) {
  SG_ASSIGN_OR_RETURN(git_oid oid, internal::ParseOid(base_commit));
  SG_ASSIGN_OR_RETURN(internal::CommitPtr commit, internal::LookupCommit(repo, oid));
  // HEAD first, so the checkout's baseline is the base commit whatever code in
  // the copy did to HEAD (branches, commits, detached elsewhere).
  SG_RETURN_IF_ERROR(DetachHead(repo, copy_path, oid));
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED | GIT_CHECKOUT_REMOVE_IGNORED;
  std::vector<char*> raw_paths;
  if (paths != nullptr) {
    options.paths = PathArray(*paths, &raw_paths);
    options.checkout_strategy |= GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
  }
  int rc = git_checkout_tree(repo, reinterpret_cast<git_object*>(commit.get()), &options);
  if (rc != 0) return GitStatus(rc, "cannot check out " + std::string(base_commit) + " in " + copy_path);
  return Status::Ok();
}

// Makes the index entries of `paths` equal to the base tree (oid and mode, stat
// data from the restored file). libgit2's checkout only updates entries of the
// files it writes, so a file already matching the base but missing from the
// index (`git rm --cached`) would otherwise stay untracked.
Status SyncIndexEntries(git_repository* repo, const std::string& copy_path, git_tree* base_tree,
                        const std::vector<std::string>& paths) {
  git_index* index = nullptr;
  int rc = git_repository_index(&index, repo);
  if (rc != 0) return GitStatus(rc, "cannot open the index of " + copy_path);
  internal::IndexPtr owned(index);
  rc = git_index_read(index, /*force=*/1);
  if (rc != 0) return GitStatus(rc, "cannot read the index of " + copy_path);
  std::string workdir = git_repository_workdir(repo);
  bool changed = false;
  for (const std::string& path : paths) {
    if (git_index_has_conflicts(index) && git_index_conflict_remove(index, path.c_str()) == 0) changed = true;
    git_tree_entry* raw_entry = nullptr;
    if (git_tree_entry_bypath(&raw_entry, base_tree, path.c_str()) != 0) {
      if (git_index_get_bypath(index, path.c_str(), 0) != nullptr) {
        rc = git_index_remove_bypath(index, path.c_str());
        if (rc != 0) return GitStatus(rc, "cannot drop '" + path + "' from the index of " + copy_path);
        changed = true;
      }
      continue;
    }
    internal::TreeEntryPtr tree_entry(raw_entry);
    if (git_tree_entry_type(tree_entry.get()) != GIT_OBJECT_BLOB) continue;
    const git_oid* id = git_tree_entry_id(tree_entry.get());
    auto mode = static_cast<std::uint32_t>(git_tree_entry_filemode(tree_entry.get()));
    const git_index_entry* current = git_index_get_bypath(index, path.c_str(), 0);
    if (current != nullptr && git_oid_equal(&current->id, id) && current->mode == mode) continue;
    struct stat st;
    if (::lstat((workdir + path).c_str(), &st) != 0) continue;  // checkout failed: verify reports it
    git_index_entry entry;
    std::memset(&entry, 0, sizeof(entry));
    entry.ctime.seconds = static_cast<int32_t>(st.st_ctim.tv_sec);
    entry.ctime.nanoseconds = static_cast<uint32_t>(st.st_ctim.tv_nsec);
    entry.mtime.seconds = static_cast<int32_t>(st.st_mtim.tv_sec);
    entry.mtime.nanoseconds = static_cast<uint32_t>(st.st_mtim.tv_nsec);
    entry.dev = static_cast<uint32_t>(st.st_dev);
    entry.ino = static_cast<uint32_t>(st.st_ino);
    entry.uid = st.st_uid;
    entry.gid = st.st_gid;
    entry.file_size = static_cast<uint32_t>(st.st_size);
    entry.mode = mode;
    entry.id = *id;
    entry.path = path.c_str();
    rc = git_index_add(index, &entry);
    if (rc != 0) return GitStatus(rc, "cannot reset '" + path + "' in the index of " + copy_path);
    changed = true;
  }
  if (!changed) return Status::Ok();
  rc = git_index_write(index);
  if (rc != 0) return GitStatus(rc, "cannot write the index of " + copy_path);
  return Status::Ok();
}

struct StatusScan {
  std::vector<std::string> tracked;  // differ from the base in the index or work tree
  std::vector<std::string> extra;    // untracked or ignored files and whole directories
};

// One status walk (stat per file, trusting the index's stat cache as git does).
Result<StatusScan> ScanChanges(git_repository* repo, const std::string& copy_path,
                               const std::vector<std::string>* only_paths) {
  git_status_options options = GIT_STATUS_OPTIONS_INIT;
  options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_INCLUDE_IGNORED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
  // Write refreshed stat data back, so files whose stat changed without a
  // content change (chown, touch) are hashed once, not on every later scan.
  if (only_paths == nullptr) options.flags |= GIT_STATUS_OPT_UPDATE_INDEX;
  std::vector<char*> raw_paths;
  if (only_paths != nullptr) {
    options.pathspec = PathArray(*only_paths, &raw_paths);
    options.flags |= GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
  }
  git_status_list* raw = nullptr;
  int rc = git_status_list_new(&raw, repo, &options);
  if (rc != 0) return GitStatus(rc, "cannot compute the status of " + copy_path);
  internal::StatusListPtr list(raw);
  StatusScan scan;
  std::size_t count = git_status_list_entrycount(list.get());
  for (std::size_t i = 0; i < count; ++i) {
    const git_status_entry* entry = git_status_byindex(list.get(), i);
    if (entry->status == GIT_STATUS_CURRENT) continue;
    const git_diff_delta* delta = entry->index_to_workdir != nullptr ? entry->index_to_workdir : entry->head_to_index;
    const char* path = delta->new_file.path != nullptr ? delta->new_file.path : delta->old_file.path;
    if (path == nullptr) continue;
    bool extra = (entry->status & (GIT_STATUS_WT_NEW | GIT_STATUS_IGNORED)) != 0 &&
                 (entry->status & ~(GIT_STATUS_WT_NEW | GIT_STATUS_IGNORED)) == 0;
    (extra ? scan.extra : scan.tracked).emplace_back(path);
  }
  return scan;
}

// Restores only what a status walk reports: removes untracked and ignored
// entries directly, checks out the changed tracked paths, and (if `verify`)
// confirms those paths are clean afterwards. Costs one stat per file plus work
// proportional to the change, versus two full walks for checkout + status.
Status RestoreChangedPaths(git_repository* repo, const std::string& copy_path, std::string_view base_commit,
                           bool verify, std::vector<std::string>* rewritten) {
  SG_ASSIGN_OR_RETURN(git_oid oid, internal::ParseOid(base_commit));
  SG_RETURN_IF_ERROR(DetachHead(repo, copy_path, oid));
  SG_ASSIGN_OR_RETURN(StatusScan scan, ScanChanges(repo, copy_path, nullptr));
  std::string workdir = git_repository_workdir(repo);
  SG_ASSIGN_OR_RETURN(internal::ConfinedDir root, internal::ConfinedDir::Open(copy_path));
  for (const std::string& path : scan.extra) SG_RETURN_IF_ERROR(root.RemoveAll(path));
  if (!scan.tracked.empty()) {
    *rewritten = scan.tracked;
    SG_RETURN_IF_ERROR(CheckoutBase(repo, copy_path, base_commit, &scan.tracked));
    SG_ASSIGN_OR_RETURN(internal::TreePtr tree, internal::CommitTree(repo, base_commit));
    SG_RETURN_IF_ERROR(SyncIndexEntries(repo, copy_path, tree.get(), scan.tracked));
  }
  if (!verify) return Status::Ok();
  for (const std::string& path : scan.extra) {
    struct stat st;
    if (::lstat((workdir + path).c_str(), &st) == 0) {
      return FailedPreconditionError("'" + path + "' is still present in " + copy_path);
    }
  }
  if (scan.tracked.empty()) return Status::Ok();
  SG_ASSIGN_OR_RETURN(StatusScan after, ScanChanges(repo, copy_path, &scan.tracked));
  if (!after.tracked.empty() || !after.extra.empty()) {
    std::string first = after.tracked.empty() ? after.extra.front() : after.tracked.front();
    return FailedPreconditionError("'" + first + "' still differs from the base in " + copy_path);
  }
  return Status::Ok();
}

// Unlinks every symlink, FIFO, socket and device node in the work tree
// (outside the top-level .git, which host code never reads) and makes every
// directory writable. libgit2's checkout writes through symlinks: a tracked
// file or directory replaced by a link to a host path would otherwise have
// the restore write base content there. It also opens a tracked path for
// writing without O_NONBLOCK: a FIFO put in its place would block the
// restore forever. Tracked symlinks are recreated by the checkout that follows.
Status NeutraliseWorkTree(const std::string& copy_path) {
  SG_ASSIGN_OR_RETURN(internal::ConfinedDir root, internal::ConfinedDir::Open(copy_path));
  return root.UnlinkSpecialEntriesAndOpenDirs(".git");
}

}  // namespace

namespace internal {

namespace {

// Config of the disposable git directory in the work tree: what `git init`
// writes, so git commands run by the agent behave as in any clone.
constexpr std::string_view kAgentGitConfig =
    "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";

}  // namespace

// The authoritative git directory must be a real directory and the metadata a
// restore writes (HEAD and its reflog, index, alternates) must not be
// symlinks. Nothing inside the sandbox can reach it; this guards against
// anything else having tampered with the pool directory.
Status CheckCopyIsReal(const CopyPaths& copy) {
  struct stat st;
  for (const std::string* dir : {&copy.git_dir, &copy.work_tree}) {
    if (::lstat(dir->c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return FailedPreconditionError("'" + *dir + "' is missing or not a directory");
    }
  }
  static const char* const kWritten[] = {
      "HEAD", "index", "config", "objects", "objects/info", "objects/info/alternates", "logs", "logs/HEAD", "refs"};
  for (const char* name : kWritten) {
    std::string path = copy.git_dir + "/" + name;
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      return FailedPreconditionError("'" + path + "' is a symlink");
    }
  }
  return Status::Ok();
}

Status ForceRemoveAll(const std::string& path) { return RemoveTreeConfined(path); }

Status WriteFileReplacing(const std::string& path, std::string_view content) {
  // A fresh temporary name (O_EXCL|O_NOFOLLOW) in the same directory, renamed over `path`.
  SG_ASSIGN_OR_RETURN(AtomicFile f, AtomicFile::Open(path, /*durable=*/false));
  SG_RETURN_IF_ERROR(f.Append(content));
  return f.Commit();
}

Status EnsureAlternates(const std::string& git_dir, const std::string& source_objects_dir) {
  std::string info = git_dir + "/objects/info";
  std::string file = info + "/alternates";
  std::string wanted = source_objects_dir + "\n";
  auto current = seragen::ReadFile(file);
  if (current.ok() && *current == wanted) return Status::Ok();
  SG_RETURN_IF_ERROR(MakeDirs(info));
  return WriteFileReplacing(file, wanted);
}

Status CopyIndexToAgentGitDir(const CopyPaths& copy, bool chown, unsigned uid, unsigned gid) {
  std::string index_path = copy.git_dir + "/index";
  struct stat st;
  if (::stat(index_path.c_str(), &st) != 0) return Status::Ok();  // nothing checked out yet
  SG_ASSIGN_OR_RETURN(std::string bytes, seragen::ReadFile(index_path));
  SG_ASSIGN_OR_RETURN(ConfinedDir root, ConfinedDir::Open(copy.work_tree));
  SG_RETURN_IF_ERROR(root.RemoveAll(".git/index"));
  std::optional<FileOwner> owner;
  if (chown) owner = FileOwner{uid, gid};
  return root.WriteNewFile(".git/index", bytes, 0644, &st.st_mtim, owner);
}

Status ResetAgentGitDir(const CopyPaths& copy, std::string_view base_commit, const std::string& source_objects_dir) {
  SG_ASSIGN_OR_RETURN(ConfinedDir root, ConfinedDir::Open(copy.work_tree));
  SG_RETURN_IF_ERROR(root.RemoveAll(".git"));
  for (const char* dir :
       {".git", ".git/objects", ".git/objects/info", ".git/refs", ".git/refs/heads", ".git/refs/tags"}) {
    SG_RETURN_IF_ERROR(root.MakeDir(dir, 0755));
  }
  SG_RETURN_IF_ERROR(root.WriteNewFile(".git/HEAD", std::string(base_commit) + "\n", 0644));
  SG_RETURN_IF_ERROR(root.WriteNewFile(".git/config", kAgentGitConfig, 0644));
  SG_RETURN_IF_ERROR(root.WriteNewFile(".git/objects/info/alternates", source_objects_dir + "\n", 0644));
  return CopyIndexToAgentGitDir(copy, /*chown=*/false, 0, 0);
}

Status MakeEmptyCopy(const CopyPaths& copy, const std::string& source_objects_dir) {
  git_repository_init_options init = GIT_REPOSITORY_INIT_OPTIONS_INIT;
  // Bare: opening it without forcing a work directory finds none.
  init.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_REINIT;
  git_repository* raw = nullptr;
  int rc = git_repository_init_ext(&raw, copy.git_dir.c_str(), &init);
  if (rc != 0) return GitStatus(rc, "cannot create a git directory at " + copy.git_dir);
  git_repository_free(raw);
  SG_RETURN_IF_ERROR(EnsureAlternates(copy.git_dir, source_objects_dir));
  return MakeDirs(copy.work_tree);
}

Status CreateWorkingCopy(const CopyPaths& copy, std::string_view base_commit, const std::string& source_objects_dir) {
  EnsureLibgit2();
  std::string suffix = ".tmp-" + std::to_string(::getpid());
  CopyPaths tmp{copy.work_tree + suffix, copy.git_dir + suffix};
  SG_RETURN_IF_ERROR(ForceRemoveAll(tmp.work_tree));
  SG_RETURN_IF_ERROR(ForceRemoveAll(tmp.git_dir));
  Status built = MakeEmptyCopy(tmp, source_objects_dir);
  if (built.ok()) {
    // Reopen so the object database sees the alternates file.
    auto repo = OpenCopyRepository(tmp);
    built = repo.ok() ? CheckoutBase(repo->get(), tmp.work_tree, base_commit) : repo.status();
  }
  std::error_code ec;
  if (built.ok()) {
    fs::rename(tmp.git_dir, copy.git_dir, ec);
    if (ec) built = IoError("cannot move new git directory to '" + copy.git_dir + "': " + ec.message());
  }
  if (built.ok()) {
    fs::rename(tmp.work_tree, copy.work_tree, ec);
    if (ec) built = IoError("cannot move new working copy to '" + copy.work_tree + "': " + ec.message());
  }
  if (!built.ok()) {
    (void)ForceRemoveAll(tmp.work_tree);
    (void)ForceRemoveAll(tmp.git_dir);
    return built;
  }
  return ResetAgentGitDir(copy, base_commit, source_objects_dir);
}

Status RestoreCopy(const CopyPaths& copy, std::string_view base_commit, const std::string& source_objects_dir,
                   bool verify, RestoredScope* scope) {
  RestoredScope ignored;
  if (scope == nullptr) scope = &ignored;
  *scope = RestoredScope{};  // whole until the targeted restore says otherwise
  SG_RETURN_IF_ERROR(CheckCopyIsReal(copy));
  SG_RETURN_IF_ERROR(EnsureAlternates(copy.git_dir, source_objects_dir));
  SG_RETURN_IF_ERROR(NeutraliseWorkTree(copy.work_tree));
  SG_ASSIGN_OR_RETURN(RepoPtr repo, OpenCopyRepository(copy));
  std::vector<std::string> rewritten;
  Status targeted = RestoreChangedPaths(repo.get(), copy.work_tree, base_commit, verify, &rewritten);
  if (targeted.ok()) {
    *scope = RestoredScope{false, std::move(rewritten)};
    return targeted;
  }
  // The index may be corrupt or a removal may have failed: do it the slow way.
  SG_RETURN_IF_ERROR(CheckoutBase(repo.get(), copy.work_tree, base_commit));
  if (!verify) return Status::Ok();
  SG_ASSIGN_OR_RETURN(StatusScan scan, ScanChanges(repo.get(), copy.work_tree, nullptr));
  if (!scan.tracked.empty() || !scan.extra.empty()) {
    return FailedPreconditionError(targeted.message() + "; a full checkout left " +
                                   std::to_string(scan.tracked.size() + scan.extra.size()) + " changed paths");
  }
  return Status::Ok();
}

}  // namespace internal

Status RestoreWorkingCopy(const CopyPaths& copy, std::string_view base_commit) {
  SG_RETURN_IF_ERROR(internal::CheckCopyIsReal(copy));
  // Keep whatever alternates the copy's git directory has: read them back unchanged.
  auto alternates = seragen::ReadFile(copy.git_dir + "/objects/info/alternates");
  if (alternates.ok() && !alternates->empty() && alternates->find('\n') == alternates->size() - 1) {
    return internal::RestoreCopy(copy, base_commit, alternates->substr(0, alternates->size() - 1),
                                 /*verify=*/true);
  }
  SG_RETURN_IF_ERROR(NeutraliseWorkTree(copy.work_tree));
  SG_ASSIGN_OR_RETURN(internal::RepoPtr repo, internal::OpenCopyRepository(copy));
  return CheckoutBase(repo.get(), copy.work_tree, base_commit);
}

Result<std::vector<std::string>> DirtyPaths(const CopyPaths& copy) {
  SG_ASSIGN_OR_RETURN(internal::RepoPtr repo, internal::OpenCopyRepository(copy));
  git_status_options options = GIT_STATUS_OPTIONS_INIT;
  options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_INCLUDE_IGNORED |
                  GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS | GIT_STATUS_OPT_RECURSE_IGNORED_DIRS |
                  GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
  git_status_list* raw = nullptr;
  int rc = git_status_list_new(&raw, repo.get(), &options);
  if (rc != 0) return GitStatus(rc, "cannot compute the status of " + copy.work_tree);
  internal::StatusListPtr list(raw);
  std::vector<std::string> paths;
  std::size_t count = git_status_list_entrycount(list.get());
  for (std::size_t i = 0; i < count; ++i) {
    const git_status_entry* entry = git_status_byindex(list.get(), i);
    if (entry->status == GIT_STATUS_CURRENT) continue;
    const git_diff_delta* delta = entry->index_to_workdir != nullptr ? entry->index_to_workdir : entry->head_to_index;
    if (delta == nullptr) continue;
    const char* path = delta->new_file.path != nullptr ? delta->new_file.path : delta->old_file.path;
    paths.emplace_back(path != nullptr ? path : "?");
  }
  return paths;
}

}  // namespace seragen::repo
