#include "repo/confined_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "seragen/base/strings.h"

namespace seragen::repo::internal {

namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

std::string Errno(int err) { return std::strerror(err); }

// Adds owner rwx to the directory `name` in `parent` without following a
// symlink: an O_PATH descriptor pins the inode, /proc/self/fd names it.
void OpenUpDirAt(int parent, const char* name) {
  UniqueFd fd(::openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return;
  struct stat st;
  if (::fstat(fd.get(), &st) == 0 && (st.st_mode & 0700) != 0700) {
    char proc[64];
    std::snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd.get());
    ::chmod(proc, (st.st_mode & 07777) | 0700);
  }
}

// Opens directory `name` in `parent` (never through a symlink), making it
// searchable first when its mode forbids that. -1 with errno on failure.
int OpenDirAt(int parent, const char* name) {
  int fd = ::openat(parent, name, kDirFlags);
  if (fd < 0 && errno == EACCES) {
    OpenUpDirAt(parent, name);
    fd = ::openat(parent, name, kDirFlags);
  }
  return fd;
}

void MakeWritable(int dir) {
  struct stat st;
  if (::fstat(dir, &st) == 0 && (st.st_mode & 0700) != 0700) ::fchmod(dir, (st.st_mode & 07777) | 0700);
}

struct Entry {
  std::string name;
  unsigned char type;
};

// Lists `dir` (not consumed) without "." and "..".
Result<std::vector<Entry>> ListDir(int dir, const std::string& where) {
  UniqueFd copy(::dup(dir));
  if (!copy.valid()) return IoError("cannot list '" + where + "': " + Errno(errno));
  DIR* handle = ::fdopendir(copy.get());
  if (handle == nullptr) {
    int err = errno;
    return IoError("cannot list '" + where + "': " + Errno(err));
  }
  copy.release();  // closedir closes it
  ::rewinddir(handle);
  std::vector<Entry> entries;
  while (const dirent* e = ::readdir(handle)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN) {
      struct stat st;
      if (::fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      type = S_ISLNK(st.st_mode)    ? DT_LNK
             : S_ISDIR(st.st_mode)  ? DT_DIR
             : S_ISREG(st.st_mode)  ? DT_REG
             : S_ISFIFO(st.st_mode) ? DT_FIFO
                                    : DT_SOCK;
    }
    entries.push_back(Entry{e->d_name, type});
  }
  ::closedir(handle);
  return entries;
}

std::string Join(const std::string& where, const std::string& name) {
  return where.empty() ? name : where + "/" + name;
}

// Removal state shared by one RemoveAll call.
struct Remover {
  int root;                           // subtrees deeper than the cap move here
  std::vector<std::string> deferred;  // names in `root` still to remove
  const std::string& root_path;

  Status RemoveEntry(int parent, const std::string& name, int depth, const std::string& where) {
    if (::unlinkat(parent, name.c_str(), 0) == 0 || errno == ENOENT) return Status::Ok();
    if (errno == EACCES || errno == EPERM) {
      MakeWritable(parent);
      if (::unlinkat(parent, name.c_str(), 0) == 0 || errno == ENOENT) return Status::Ok();
    }
    if (errno != EISDIR) return IoError("cannot remove '" + where + "' in " + root_path + ": " + Errno(errno));
    if (depth >= kMaxConfinedDepth) return Defer(parent, name, where);
    UniqueFd child(OpenDirAt(parent, name.c_str()));
    if (child.get() < 0) {
      // Swapped for a non-directory since the unlink: try once more.
      if ((errno == ENOTDIR || errno == ELOOP) && ::unlinkat(parent, name.c_str(), 0) == 0) return Status::Ok();
      return IoError("cannot open '" + where + "' in " + root_path + ": " + Errno(errno));
    }
    MakeWritable(child.get());
    SG_ASSIGN_OR_RETURN(std::vector<Entry> entries, ListDir(child.get(), where));
    for (const Entry& e : entries) SG_RETURN_IF_ERROR(RemoveEntry(child.get(), e.name, depth + 1, Join(where, e.name)));
    child = UniqueFd();
    if (::unlinkat(parent, name.c_str(), AT_REMOVEDIR) == 0 || errno == ENOENT) return Status::Ok();
    return IoError("cannot remove directory '" + where + "' in " + root_path + ": " + Errno(errno));
  }

  // Moves a too-deep subtree up to the root, to be removed from there.
  Status Defer(int parent, const std::string& name, const std::string& where) {
    static std::atomic<unsigned long> counter{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::string moved = ".seragen-deep-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
      if (::renameat2(parent, name.c_str(), root, moved.c_str(), RENAME_NOREPLACE) == 0) {
        deferred.push_back(std::move(moved));
        return Status::Ok();
      }
      if (errno != EEXIST) break;
    }
    return IoError("cannot flatten deep directory '" + where + "' in " + root_path + ": " + Errno(errno));
  }

  Status Finish() {
    while (!deferred.empty()) {
      std::string name = std::move(deferred.back());
      deferred.pop_back();
      SG_RETURN_IF_ERROR(RemoveEntry(root, name, 0, name));
    }
    return Status::Ok();
  }
};

// Depth-first walk calling `visit(dir_fd, entry, relative_path)` for every
// entry; it returns true to descend into a directory entry.
template <typename Visit>
Status Walk(int dir, int depth, const std::string& where, const std::string& root_path, Visit& visit) {
  if (depth > kMaxConfinedDepth) {
    return FailedPreconditionError("'" + where + "' in " + root_path + " is nested deeper than " +
                                   std::to_string(kMaxConfinedDepth) + " directories");
  }
  SG_ASSIGN_OR_RETURN(std::vector<Entry> entries, ListDir(dir, where.empty() ? root_path : where));
  for (const Entry& e : entries) {
    std::string path = Join(where, e.name);
    SG_ASSIGN_OR_RETURN(bool descend, visit(dir, e, path));
    if (!descend) continue;
    UniqueFd child(OpenDirAt(dir, e.name.c_str()));
    if (child.get() < 0) {
      if (errno == ENOTDIR || errno == ELOOP || errno == ENOENT) continue;  // changed under us
      return IoError("cannot open '" + path + "' in " + root_path + ": " + Errno(errno));
    }
    SG_RETURN_IF_ERROR(Walk(child.get(), depth + 1, path, root_path, visit));
  }
  return Status::Ok();
}

// The entries of `dir` with lstat data, sorted by name; entries that vanish
// while listed are left out.
Result<std::vector<EntryStat>> StatEntries(int dir, const std::string& where) {
  SG_ASSIGN_OR_RETURN(std::vector<Entry> names, ListDir(dir, where));
  std::vector<EntryStat> entries;
  entries.reserve(names.size());
  for (Entry& e : names) {
    EntryStat entry{std::move(e.name), {}};
    if (::fstatat(dir, entry.name.c_str(), &entry.st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(), [](const EntryStat& a, const EntryStat& b) { return a.name < b.name; });
  return entries;
}

Status WalkDirsAt(int dir, int depth, const std::string& where, const std::string& root_path, const DirVisitor& visit) {
  SG_ASSIGN_OR_RETURN(std::vector<EntryStat> entries, StatEntries(dir, where.empty() ? root_path : where));
  SG_ASSIGN_OR_RETURN(std::vector<std::string> next, visit(where, entries));
  if (depth >= kMaxConfinedDepth) return Status::Ok();
  for (const std::string& name : next) {
    UniqueFd child(::openat(dir, name.c_str(), kDirFlags));
    if (!child.valid()) continue;  // gone, replaced or unreadable: nothing below it to report
    SG_RETURN_IF_ERROR(WalkDirsAt(child.get(), depth + 1, Join(where, name), root_path, visit));
  }
  return Status::Ok();
}

}  // namespace

Result<ConfinedDir> ConfinedDir::Open(const std::string& path) {
  int fd = ::open(path.c_str(), kDirFlags);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return NotFoundError("'" + path + "' does not exist");
    if (err == ELOOP || err == ENOTDIR) return FailedPreconditionError("'" + path + "' is not a directory");
    return IoError("cannot open '" + path + "': " + Errno(err));
  }
  return ConfinedDir(path, UniqueFd(fd));
}

Result<UniqueFd> ConfinedDir::OpenParent(std::string_view relative, std::string* leaf) const {
  std::vector<std::string> parts;
  for (std::string& part : SplitOn(relative, "/")) {
    if (part == "." || part == "..") {
      return InvalidArgumentError("path '" + std::string(relative) + "' in " + path_ + " has a '" + std::string(part) +
                                  "' component");
    }
    if (!part.empty()) parts.push_back(std::move(part));
  }
  if (parts.empty()) return InvalidArgumentError("empty path inside " + path_);
  *leaf = parts.back();
  UniqueFd dir(::dup(fd_.get()));
  if (dir.get() < 0) return IoError("cannot duplicate a descriptor of " + path_ + ": " + Errno(errno));
  std::string walked;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    walked = Join(walked, parts[i]);
    int next = OpenDirAt(dir.get(), parts[i].c_str());
    if (next < 0) {
      int err = errno;
      if (err == ENOENT) return NotFoundError("'" + walked + "' does not exist in " + path_);
      if (err == ELOOP || err == ENOTDIR) {
        return FailedPreconditionError("'" + walked + "' in " + path_ + " is not a directory (a symlink?)");
      }
      return IoError("cannot open '" + walked + "' in " + path_ + ": " + Errno(err));
    }
    dir = UniqueFd(next);
  }
  return dir;
}

Status ConfinedDir::RemoveAll(std::string_view relative) const {
  std::string leaf;
  Result<UniqueFd> parent = OpenParent(relative, &leaf);
  if (!parent.ok()) {
    // A missing parent means the entry is gone already.
    return parent.status().code() == StatusCode::kNotFound ? Status::Ok() : parent.status();
  }
  Remover remover{fd_.get(), {}, path_};
  SG_RETURN_IF_ERROR(remover.RemoveEntry(parent->get(), leaf, 1, std::string(relative)));
  return remover.Finish();
}

Status ConfinedDir::UnlinkSpecialEntriesAndOpenDirs(std::string_view skip_top) const {
  auto visit = [&](int dir, const Entry& e, const std::string& path) -> Result<bool> {
    if (dir == fd_.get() && e.name == skip_top) return false;
    if (e.type == DT_REG) return false;
    if (e.type != DT_DIR) {  // symlink, FIFO, socket, device node
      if (::unlinkat(dir, e.name.c_str(), 0) != 0 && errno != ENOENT) {
        MakeWritable(dir);
        if (::unlinkat(dir, e.name.c_str(), 0) != 0 && errno != ENOENT) {
          return IoError("cannot remove special file '" + path + "' from " + path_ + ": " + Errno(errno));
        }
      }
      return false;
    }
    OpenUpDirAt(dir, e.name.c_str());
    return true;
  };
  return Walk(fd_.get(), 0, "", path_, visit);
}

Status ConfinedDir::ChownAll(uid_t uid, gid_t gid) const {
  struct stat st;
  if (::fstat(fd_.get(), &st) != 0) return IoError("cannot stat " + path_ + ": " + Errno(errno));
  if ((st.st_uid != uid || st.st_gid != gid) && ::fchown(fd_.get(), uid, gid) != 0) {
    return IoError("cannot chown " + path_ + ": " + Errno(errno));
  }
  auto visit = [&](int dir, const Entry& e, const std::string& path) -> Result<bool> {
    struct stat entry_stat;
    if (::fstatat(dir, e.name.c_str(), &entry_stat, AT_SYMLINK_NOFOLLOW) != 0) return false;
    if ((entry_stat.st_uid != uid || entry_stat.st_gid != gid) &&
        ::fchownat(dir, e.name.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) != 0) {
      return IoError("cannot chown '" + path + "' in " + path_ + ": " + Errno(errno));
    }
    return S_ISDIR(entry_stat.st_mode);
  };
  return Walk(fd_.get(), 0, "", path_, visit);
}

Status ConfinedDir::ChownPath(std::string_view relative, uid_t uid, gid_t gid) const {
  UniqueFd dir(::dup(fd_.get()));
  if (dir.get() < 0) return IoError("cannot duplicate a descriptor of " + path_ + ": " + Errno(errno));
  std::string walked;
  for (const std::string& part : SplitOn(relative, "/")) {
    if (part.empty()) continue;
    if (part == "." || part == "..") {
      return InvalidArgumentError("path '" + std::string(relative) + "' in " + path_ + " has a '" + part +
                                  "' component");
    }
    walked = Join(walked, part);
    struct stat st;
    if (::fstatat(dir.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return Status::Ok();  // gone
    if ((st.st_uid != uid || st.st_gid != gid) &&
        ::fchownat(dir.get(), part.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) != 0) {
      return IoError("cannot chown '" + walked + "' in " + path_ + ": " + Errno(errno));
    }
    if (!S_ISDIR(st.st_mode)) return Status::Ok();
    UniqueFd next(OpenDirAt(dir.get(), part.c_str()));
    if (!next.valid()) return Status::Ok();  // replaced meanwhile: nothing of ours to give below it
    dir = std::move(next);
  }
  return Status::Ok();
}

Result<std::string> ConfinedDir::ReadFile(std::string_view relative, std::size_t max_bytes) const {
  std::string leaf;
  SG_ASSIGN_OR_RETURN(UniqueFd parent, OpenParent(relative, &leaf));
  std::string what = "'" + std::string(relative) + "' in " + path_;
  UniqueFd file(::openat(parent.get(), leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (file.get() < 0) {
    int err = errno;
    if (err == ENOENT) return NotFoundError(what + " does not exist");
    if (err == ELOOP) return FailedPreconditionError(what + " is a symlink");
    return IoError("cannot open " + what + ": " + Errno(err));
  }
  struct stat st;
  if (::fstat(file.get(), &st) != 0) return IoError("cannot stat " + what + ": " + Errno(errno));
  if (!S_ISREG(st.st_mode)) return FailedPreconditionError(what + " is not a regular file");
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    return ResourceExhaustedError(what + " is larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::string content;
  char buf[8192];
  while (true) {
    ssize_t n = ::read(file.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError("cannot read " + what + ": " + Errno(errno));
    if (n == 0) break;
    if (content.size() + static_cast<std::size_t>(n) > max_bytes) {
      return ResourceExhaustedError(what + " is larger than " + std::to_string(max_bytes) + " bytes");
    }
    content.append(buf, static_cast<std::size_t>(n));
  }
  return content;
}

Result<struct stat> ConfinedDir::Lstat(std::string_view relative) const {
  std::string leaf;
  Result<UniqueFd> parent = OpenParent(relative, &leaf);
  std::string what = "'" + std::string(relative) + "' in " + path_;
  if (!parent.ok()) {
    if (parent.status().code() == StatusCode::kFailedPrecondition) return NotFoundError(what + " does not exist");
    return parent.status();
  }
  struct stat st;
  if (::fstatat(parent->get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return st;
  int err = errno;
  if (err == ENOENT || err == ENOTDIR) return NotFoundError(what + " does not exist");
  return IoError("cannot stat " + what + ": " + Errno(err));
}

Result<std::string> ConfinedDir::ReadLink(std::string_view relative, std::size_t max_bytes) const {
  std::string leaf;
  SG_ASSIGN_OR_RETURN(UniqueFd parent, OpenParent(relative, &leaf));
  std::string what = "'" + std::string(relative) + "' in " + path_;
  std::string target(max_bytes + 1, '\0');
  ssize_t n = ::readlinkat(parent.get(), leaf.c_str(), target.data(), target.size());
  if (n < 0) {
    int err = errno;
    if (err == EINVAL) return FailedPreconditionError(what + " is not a symlink");
    if (err == ENOENT) return NotFoundError(what + " does not exist");
    return IoError("cannot read the symlink " + what + ": " + Errno(err));
  }
  if (static_cast<std::size_t>(n) > max_bytes) {
    return ResourceExhaustedError("the target of " + what + " is longer than " + std::to_string(max_bytes) + " bytes");
  }
  target.resize(static_cast<std::size_t>(n));
  return target;
}

Status ConfinedDir::WalkDirs(const DirVisitor& visit) const { return WalkDirsAt(fd_.get(), 0, "", path_, visit); }

Status ConfinedDir::MakeDir(std::string_view relative, mode_t mode) const {
  std::string leaf;
  SG_ASSIGN_OR_RETURN(UniqueFd parent, OpenParent(relative, &leaf));
  if (::mkdirat(parent.get(), leaf.c_str(), mode) == 0) return Status::Ok();
  int err = errno;
  std::string what = "'" + std::string(relative) + "' in " + path_;
  if (err == EEXIST) return AlreadyExistsError(what + " already exists");
  return IoError("cannot create directory " + what + ": " + Errno(err));
}

Status ConfinedDir::WriteNewFile(std::string_view relative, std::string_view content, mode_t mode,
                                 const struct timespec* mtime, std::optional<FileOwner> owner) const {
  std::string leaf;
  SG_ASSIGN_OR_RETURN(UniqueFd parent, OpenParent(relative, &leaf));
  std::string what = "'" + std::string(relative) + "' in " + path_;
  UniqueFd file(::openat(parent.get(), leaf.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (file.get() < 0) {
    int err = errno;
    if (err == EEXIST) return AlreadyExistsError(what + " already exists");
    return IoError("cannot create " + what + ": " + Errno(err));
  }
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(file.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return IoError("cannot write " + what + ": " + Errno(errno));
    done += static_cast<std::size_t>(n);
  }
  if (mtime != nullptr) {
    struct timespec times[2] = {*mtime, *mtime};
    if (::futimens(file.get(), times) != 0) return IoError("cannot set the mtime of " + what + ": " + Errno(errno));
  }
  if (owner && ::fchown(file.get(), owner->uid, owner->gid) != 0) {
    return IoError("cannot chown " + what + ": " + Errno(errno));
  }
  return Status::Ok();
}

Status RemoveTreeConfined(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  std::size_t slash = trimmed.rfind('/');
  std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : trimmed.substr(0, slash);
  std::string name = slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
  Result<ConfinedDir> dir = ConfinedDir::Open(parent);
  if (!dir.ok()) return dir.status().code() == StatusCode::kNotFound ? Status::Ok() : dir.status();
  return dir->RemoveAll(name);
}

}  // namespace seragen::repo::internal
