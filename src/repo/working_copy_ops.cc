#include "repo/working_copy_ops.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <vector>

#include "repo/git_handles.h"
#include "seragen/base/file_util.h"
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
  options.checkout_strategy =
      GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED | GIT_CHECKOUT_REMOVE_IGNORED;
  std::vector<char*> raw_paths;
  if (paths != nullptr) {
    for (const std::string& p : *paths) raw_paths.push_back(const_cast<char*>(p.c_str()));
    options.paths.strings = raw_paths.data();
    options.paths.count = raw_paths.size();
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
  options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_INCLUDE_IGNORED |
                  GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
  // Write refreshed stat data back, so files whose stat changed without a
  // content change (chown, touch) are hashed once, not on every later scan.
  if (only_paths == nullptr) options.flags |= GIT_STATUS_OPT_UPDATE_INDEX;
  std::vector<char*> raw_paths;
  if (only_paths != nullptr) {
    for (const std::string& p : *only_paths) raw_paths.push_back(const_cast<char*>(p.c_str()));
    options.pathspec.strings = raw_paths.data();
    options.pathspec.count = raw_paths.size();
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
    const git_diff_delta* delta = entry->index_to_workdir != nullptr ? entry->index_to_workdir
                                                                     : entry->head_to_index;
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
Status RestoreChangedPaths(git_repository* repo, const std::string& copy_path,
                           std::string_view base_commit, bool verify) {
  SG_ASSIGN_OR_RETURN(git_oid oid, internal::ParseOid(base_commit));
  SG_RETURN_IF_ERROR(DetachHead(repo, copy_path, oid));
  SG_ASSIGN_OR_RETURN(StatusScan scan, ScanChanges(repo, copy_path, nullptr));
  std::string workdir = git_repository_workdir(repo);
  for (const std::string& path : scan.extra) {
    SG_RETURN_IF_ERROR(internal::ForceRemoveAll(workdir + path));
  }
  if (!scan.tracked.empty()) {
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

// Makes every directory under `path` writable and searchable by its owner.
void MakeTreeWritable(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(path, ec))) return;
  fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
  for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_directory(ec) && !it->is_symlink(ec)) {
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
  }
}

// Unlinks every symlink in the work tree (outside .git) and makes every
// directory writable. libgit2's checkout writes through symlinks: a tracked
// file or directory replaced by a link to a host path would otherwise have the
// restore write base content there. Tracked symlinks are recreated by the
// checkout that follows. Uses readdir's d_type, so no stat per file.
Status NeutraliseWorkTree(const std::string& copy_path) {
  std::vector<std::string> pending{copy_path};
  while (!pending.empty()) {
    std::string dir = std::move(pending.back());
    pending.pop_back();
    DIR* handle = ::opendir(dir.c_str());
    if (handle == nullptr && errno == EACCES) {
      ::chmod(dir.c_str(), 0755);
      handle = ::opendir(dir.c_str());
    }
    if (handle == nullptr) return IoError("cannot read directory '" + dir + "' in a working copy");
    bool top = dir.size() == copy_path.size();
    while (const dirent* entry = ::readdir(handle)) {
      std::string_view name = entry->d_name;
      if (name == "." || name == ".." || (top && name == ".git")) continue;
      std::string full = dir + "/" + std::string(name);
      unsigned char type = entry->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st;
        if (::lstat(full.c_str(), &st) != 0) continue;
        type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
      }
      if (type == DT_LNK) {
        if (::unlink(full.c_str()) != 0 && errno != ENOENT) {
          ::chmod(dir.c_str(), 0755);
          if (::unlink(full.c_str()) != 0 && errno != ENOENT) {
            ::closedir(handle);
            return IoError("cannot remove symlink '" + full + "' from a working copy");
          }
        }
      } else if (type == DT_DIR) {
        struct stat st;
        if (::lstat(full.c_str(), &st) == 0 && (st.st_mode & 0700) != 0700) {
          ::chmod(full.c_str(), (st.st_mode & 07777) | 0700);
        }
        pending.push_back(std::move(full));
      }
    }
    ::closedir(handle);
  }
  return Status::Ok();
}

}  // namespace

namespace internal {

// The copy's .git must be a real directory, and the metadata a restore writes
// (HEAD and its reflog, index, alternates) must not be symlinks: code in the
// copy could otherwise point them at host files and have the restore write
// there. Such a copy is rebuilt instead.
Status CheckGitDirIsReal(const std::string& copy_path) {
  struct stat st;
  std::string git = copy_path + "/.git";
  if (::lstat(git.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return FailedPreconditionError("'" + git + "' is missing or not a directory");
  }
  static const char* const kWritten[] = {"HEAD", "index", "config", "objects", "objects/info",
                                         "objects/info/alternates", "logs", "logs/HEAD", "refs"};
  for (const char* name : kWritten) {
    std::string path = git + "/" + name;
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      return FailedPreconditionError("'" + path + "' is a symlink");
    }
  }
  return Status::Ok();
}

Status ForceRemoveAll(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (!ec) return Status::Ok();
  MakeTreeWritable(path);
  ec.clear();
  fs::remove_all(path, ec);
  if (ec) return IoError("cannot remove '" + path + "': " + ec.message());
  return Status::Ok();
}

Status WriteFileReplacing(const std::string& path, std::string_view content) {
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError("cannot create '" + tmp + "': " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      return IoError("cannot write '" + tmp + "'");
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return IoError("cannot replace '" + path + "': " + std::strerror(errno));
  }
  return Status::Ok();
}

Status EnsureAlternates(const std::string& copy_path, const std::string& source_objects_dir) {
  std::string info = copy_path + "/.git/objects/info";
  std::string file = info + "/alternates";
  std::string wanted = source_objects_dir + "\n";
  auto current = seragen::ReadFile(file);
  if (current.ok() && *current == wanted) return Status::Ok();
  SG_RETURN_IF_ERROR(MakeDirs(info));
  return WriteFileReplacing(file, wanted);
}

Status CreateWorkingCopy(const std::string& copy_path, std::string_view base_commit,
                         const std::string& source_objects_dir) {
  EnsureLibgit2();
  std::string tmp = copy_path + ".tmp-" + std::to_string(::getpid());
  SG_RETURN_IF_ERROR(ForceRemoveAll(tmp));
  git_repository_init_options init = GIT_REPOSITORY_INIT_OPTIONS_INIT;
  init.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_REINIT;
  git_repository* raw = nullptr;
  int rc = git_repository_init_ext(&raw, tmp.c_str(), &init);
  if (rc != 0) return GitStatus(rc, "cannot create a working copy at " + tmp);
  git_repository_free(raw);
  Status built = EnsureAlternates(tmp, source_objects_dir);
  if (built.ok()) {
    // Reopen so the object database sees the alternates file.
    auto repo = OpenRepositoryExact(tmp);
    built = repo.ok() ? CheckoutBase(repo->get(), tmp, base_commit) : repo.status();
  }
  if (built.ok()) {
    std::error_code ec;
    fs::rename(tmp, copy_path, ec);
    if (ec) built = IoError("cannot move new working copy to '" + copy_path + "': " + ec.message());
  }
  if (!built.ok()) {
    (void)ForceRemoveAll(tmp);
    return built;
  }
  return Status::Ok();
}

}  // namespace internal

namespace internal {

Status RestoreCopy(const std::string& copy_path, std::string_view base_commit,
                   const std::string& source_objects_dir, bool verify) {
  SG_RETURN_IF_ERROR(CheckGitDirIsReal(copy_path));
  SG_RETURN_IF_ERROR(EnsureAlternates(copy_path, source_objects_dir));
  SG_RETURN_IF_ERROR(NeutraliseWorkTree(copy_path));
  SG_ASSIGN_OR_RETURN(RepoPtr repo, OpenRepositoryExact(copy_path));
  if (git_repository_is_bare(repo.get())) {
    return InvalidArgumentError("'" + copy_path + "' is a bare repository, not a working copy");
  }
  Status targeted = RestoreChangedPaths(repo.get(), copy_path, base_commit, verify);
  if (targeted.ok()) return targeted;
  // The index may be corrupt or a removal may have failed: do it the slow way.
  SG_RETURN_IF_ERROR(CheckoutBase(repo.get(), copy_path, base_commit));
  if (!verify) return Status::Ok();
  SG_ASSIGN_OR_RETURN(StatusScan scan, ScanChanges(repo.get(), copy_path, nullptr));
  if (!scan.tracked.empty() || !scan.extra.empty()) {
    return FailedPreconditionError(targeted.message() + "; a full checkout left " +
                                   std::to_string(scan.tracked.size() + scan.extra.size()) +
                                   " changed paths");
  }
  return Status::Ok();
}

}  // namespace internal

Status RestoreWorkingCopy(const std::string& copy_path, std::string_view base_commit) {
  SG_RETURN_IF_ERROR(internal::CheckGitDirIsReal(copy_path));
  SG_ASSIGN_OR_RETURN(internal::RepoPtr repo, internal::OpenRepositoryExact(copy_path));
  std::string objects = internal::ObjectsDir(repo.get());
  repo.reset();
  // Keep whatever alternates the copy has: read them back unchanged.
  auto alternates = seragen::ReadFile(objects + "/info/alternates");
  if (alternates.ok() && !alternates->empty() && alternates->find('\n') == alternates->size() - 1) {
    return internal::RestoreCopy(copy_path, base_commit, alternates->substr(0, alternates->size() - 1),
                                 /*verify=*/true);
  }
  SG_RETURN_IF_ERROR(NeutraliseWorkTree(copy_path));
  SG_ASSIGN_OR_RETURN(repo, internal::OpenRepositoryExact(copy_path));
  return CheckoutBase(repo.get(), copy_path, base_commit);
}

Status AdoptOwnership(const std::string& copy_path, unsigned uid, unsigned gid) {
  SG_RETURN_IF_ERROR(internal::CheckGitDirIsReal(copy_path));
  // 1. lchown everything (work tree and .git) not yet owned by uid:gid.
  std::vector<std::string> pending{copy_path};
  while (!pending.empty()) {
    std::string dir = std::move(pending.back());
    pending.pop_back();
    struct stat st;
    if (::lstat(dir.c_str(), &st) != 0) continue;
    if ((st.st_uid != uid || st.st_gid != gid) && ::lchown(dir.c_str(), uid, gid) != 0) {
      return IoError("cannot chown '" + dir + "': " + std::strerror(errno));
    }
    DIR* handle = ::opendir(dir.c_str());
    if (handle == nullptr) return IoError("cannot read directory '" + dir + "'");
    while (const dirent* entry = ::readdir(handle)) {
      std::string_view name = entry->d_name;
      if (name == "." || name == "..") continue;
      std::string full = dir + "/" + std::string(name);
      if (::lstat(full.c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        pending.push_back(std::move(full));
      } else if ((st.st_uid != uid || st.st_gid != gid) && ::lchown(full.c_str(), uid, gid) != 0) {
        ::closedir(handle);
        return IoError("cannot chown '" + full + "': " + std::strerror(errno));
      }
    }
    ::closedir(handle);
  }
  // 2. chown changed ctime/uid/gid, which the index's stat cache compares: take
  //    them over for entries whose mtime, size and inode still match, so the
  //    next status does not re-hash every file.
  SG_ASSIGN_OR_RETURN(internal::RepoPtr repo, internal::OpenRepositoryExact(copy_path));
  git_index* raw = nullptr;
  int rc = git_repository_index(&raw, repo.get());
  if (rc != 0) return GitStatus(rc, "cannot open the index of " + copy_path);
  internal::IndexPtr index(raw);
  std::string workdir = git_repository_workdir(repo.get());
  std::vector<git_index_entry> updates;
  std::size_t count = git_index_entrycount(index.get());
  for (std::size_t i = 0; i < count; ++i) {
    const git_index_entry* entry = git_index_get_byindex(index.get(), i);
    if (entry == nullptr || GIT_INDEX_ENTRY_STAGE(entry) != 0) continue;
    struct stat st;
    if (::lstat((workdir + entry->path).c_str(), &st) != 0) continue;
    bool same_content_stat = entry->mtime.seconds == static_cast<int32_t>(st.st_mtim.tv_sec) &&
                             entry->mtime.nanoseconds == static_cast<uint32_t>(st.st_mtim.tv_nsec) &&
                             entry->file_size == static_cast<uint32_t>(st.st_size) &&
                             entry->ino == static_cast<uint32_t>(st.st_ino);
    if (!same_content_stat) continue;
    if (entry->uid == st.st_uid && entry->gid == st.st_gid &&
        entry->ctime.seconds == static_cast<int32_t>(st.st_ctim.tv_sec) &&
        entry->ctime.nanoseconds == static_cast<uint32_t>(st.st_ctim.tv_nsec)) {
      continue;
    }
    git_index_entry updated = *entry;
    updated.uid = st.st_uid;
    updated.gid = st.st_gid;
    updated.ctime.seconds = static_cast<int32_t>(st.st_ctim.tv_sec);
    updated.ctime.nanoseconds = static_cast<uint32_t>(st.st_ctim.tv_nsec);
    updates.push_back(updated);
  }
  if (updates.empty()) return Status::Ok();
  for (const git_index_entry& updated : updates) {
    rc = git_index_add(index.get(), &updated);  // same path: replaces; copies the path
    if (rc != 0) return GitStatus(rc, std::string("cannot refresh '") + updated.path + "' in the index");
  }
  rc = git_index_write(index.get());
  if (rc != 0) return GitStatus(rc, "cannot write the index of " + copy_path);
  // The index file was just rewritten by us.
  std::string index_path = std::string(git_repository_path(repo.get())) + "index";
  if (::lchown(index_path.c_str(), uid, gid) != 0) {
    return IoError("cannot chown '" + index_path + "': " + std::strerror(errno));
  }
  return Status::Ok();
}

Result<std::vector<std::string>> DirtyPaths(const std::string& copy_path) {
  SG_ASSIGN_OR_RETURN(internal::RepoPtr repo, internal::OpenRepositoryExact(copy_path));
  git_status_options options = GIT_STATUS_OPTIONS_INIT;
  options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_INCLUDE_IGNORED |
                  GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS | GIT_STATUS_OPT_RECURSE_IGNORED_DIRS |
                  GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
  git_status_list* raw = nullptr;
  int rc = git_status_list_new(&raw, repo.get(), &options);
  if (rc != 0) return GitStatus(rc, "cannot compute the status of " + copy_path);
  internal::StatusListPtr list(raw);
  std::vector<std::string> paths;
  std::size_t count = git_status_list_entrycount(list.get());
  for (std::size_t i = 0; i < count; ++i) {
    const git_status_entry* entry = git_status_byindex(list.get(), i);
    if (entry->status == GIT_STATUS_CURRENT) continue;
    const git_diff_delta* delta = entry->index_to_workdir != nullptr ? entry->index_to_workdir
                                                                     : entry->head_to_index;
    if (delta == nullptr) continue;
    const char* path = delta->new_file.path != nullptr ? delta->new_file.path : delta->old_file.path;
    paths.emplace_back(path != nullptr ? path : "?");
  }
  return paths;
}

}  // namespace seragen::repo
