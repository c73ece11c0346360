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

Status CheckoutBase(git_repository* repo, const std::string& copy_path, std::string_view base_commit) {
  SG_ASSIGN_OR_RETURN(git_oid oid, internal::ParseOid(base_commit));
  SG_ASSIGN_OR_RETURN(internal::CommitPtr commit, internal::LookupCommit(repo, oid));
  // HEAD first, so the checkout's baseline is the base commit whatever code in
  // the copy did to HEAD (branches, commits, detached elsewhere).
  int rc = git_repository_set_head_detached(repo, &oid);
  if (rc != 0) return GitStatus(rc, "cannot detach HEAD of " + copy_path);
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy =
      GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED | GIT_CHECKOUT_REMOVE_IGNORED;
  rc = git_checkout_tree(repo, reinterpret_cast<git_object*>(commit.get()), &options);
  if (rc != 0) return GitStatus(rc, "cannot check out " + std::string(base_commit) + " in " + copy_path);
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

// The copy's .git must be a real directory: a symlink there (made by code in
// the copy) would point the restore at some other repository.
Status CheckGitDirIsReal(const std::string& copy_path) {
  struct stat st;
  std::string git = copy_path + "/.git";
  if (::lstat(git.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return FailedPreconditionError("'" + git + "' is missing or not a directory");
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
                   const std::string& source_objects_dir) {
  SG_RETURN_IF_ERROR(CheckGitDirIsReal(copy_path));
  SG_RETURN_IF_ERROR(EnsureAlternates(copy_path, source_objects_dir));
  return RestoreWorkingCopy(copy_path, base_commit);
}

}  // namespace internal

Status RestoreWorkingCopy(const std::string& copy_path, std::string_view base_commit) {
  SG_RETURN_IF_ERROR(internal::CheckGitDirIsReal(copy_path));
  SG_RETURN_IF_ERROR(NeutraliseWorkTree(copy_path));
  SG_ASSIGN_OR_RETURN(internal::RepoPtr repo, internal::OpenRepositoryExact(copy_path));
  if (git_repository_is_bare(repo.get())) {
    return InvalidArgumentError("'" + copy_path + "' is a bare repository, not a working copy");
  }
  return CheckoutBase(repo.get(), copy_path, base_commit);
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
