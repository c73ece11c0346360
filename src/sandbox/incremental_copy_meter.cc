#include "seragen/sandbox/incremental_copy_meter.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace seragen::sandbox {
namespace {

constexpr std::uint32_t kWatchMask = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_MOVED_FROM |
                                     IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK;
// Past this many events in one Measure a whole walk is as cheap.
constexpr std::size_t kMaxEventsPerMeasure = 20000;

std::uint64_t Blocks(const struct stat& st) { return static_cast<std::uint64_t>(st.st_blocks) * 512u; }

// Watches the directory open at `fd` through /proc/self/fd (the descriptor
// was opened without following symlinks; its magic link names exactly it).
int AddWatch(int inotify, int fd) {
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  return ::inotify_add_watch(inotify, path.c_str(), kWatchMask);
}

}  // namespace

IncrementalCopyMeter::IncrementalCopyMeter(std::vector<std::string> roots) {
  for (std::string& r : roots) roots_.push_back({std::move(r)});
}

std::uint64_t IncrementalCopyMeter::full_walks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return full_walks_;
}

Result<CopyUsage> IncrementalCopyMeter::Measure(std::uint64_t limit_bytes, std::uint64_t max_entries) {
  std::lock_guard<std::mutex> lock(mu_);
  const Limits limits{limit_bytes, max_entries};
  if (!valid_ || !Drain(limits)) SG_RETURN_IF_ERROR(Rebuild(limits));
  // A walk stopped at a limit counted only part of the tree: walk again next time.
  if (Over(limits)) valid_ = false;
  return CopyUsage{bytes_, entries_, Over(limits)};
}

Status IncrementalCopyMeter::Rebuild(Limits limits) {
  ++full_walks_;
  dirs_.clear();
  bytes_ = entries_ = 0;
  over_ = false;
  valid_ = false;
  inotify_.reset(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));  // drops every old watch and event
  bool complete = inotify_.valid();
  for (std::size_t i = 0; i < roots_.size(); ++i) {
    Root& root = roots_[i];
    UniqueFd fd(::open(root.path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) {
      return IoError("cannot open working copy " + root.path + " to measure it: " + std::strerror(errno));
    }
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) {
      int err = errno;
      return IoError("cannot stat working copy " + root.path + ": " + std::strerror(err));
    }
    root.dev = st.st_dev;
    root.blocks = Blocks(st);
    bytes_ += root.blocks;
    entries_ += 1;
    if (Over(limits)) return Status::Ok();
    if (!Scan(std::move(fd), -1, i, "", 1, limits, &root.wd)) complete = false;
    if (Over(limits)) return Status::Ok();
  }
  valid_ = complete;
  return Status::Ok();
}

bool IncrementalCopyMeter::Scan(UniqueFd fd, int parent_wd, std::size_t root, const std::string& name, int depth,
                                Limits limits, int* wd_out) {
  *wd_out = -1;
  if (depth > kMaxCopyDepth) {
    over_ = true;
    return false;
  }
  // Watched before it is read: what changes meanwhile arrives as events.
  const int wd = inotify_.valid() ? AddWatch(inotify_.get(), fd.get()) : -1;
  if (wd < 0 || dirs_.count(wd) > 0) return false;  // no watch, or one already known: in doubt
  *wd_out = wd;
  dirs_[wd] = Dir{parent_wd, root, name, {}};
  DIR* dir = ::fdopendir(fd.get());
  if (dir == nullptr) return true;
  fd.release();  // closedir closes it
  bool ok = true;
  while (ok && !Over(limits)) {
    dirent* e = ::readdir(dir);
    if (e == nullptr) break;
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    struct stat st;
    if (::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    Child c{Blocks(st), static_cast<std::uint64_t>(st.st_ino), -1};
    Count(c, true);
    if (S_ISDIR(st.st_mode) && st.st_dev == roots_[root].dev && !Over(limits)) {
      UniqueFd child(::openat(::dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (child.valid()) ok = Scan(std::move(child), wd, root, e->d_name, depth + 1, limits, &c.wd);
    }
    dirs_[wd].children[e->d_name] = c;
  }
  ::closedir(dir);
  return ok;
}

void IncrementalCopyMeter::Count(const Child& c, bool add) {
  if (add) {
    bytes_ += c.blocks;
    entries_ += 1;
  } else {
    bytes_ -= std::min(bytes_, c.blocks);
    entries_ -= std::min<std::uint64_t>(entries_, 1);
  }
}

void IncrementalCopyMeter::Forget(const Child& c) {
  Count(c, false);
  if (c.wd < 0) return;
  auto it = dirs_.find(c.wd);
  if (it == dirs_.end()) return;
  Dir dir = std::move(it->second);
  dirs_.erase(it);
  ::inotify_rm_watch(inotify_.get(), c.wd);  // fails harmlessly when the kernel dropped it already
  for (const auto& [name, child] : dir.children) Forget(child);
}

UniqueFd IncrementalCopyMeter::OpenDir(int wd, int* depth) const {
  std::vector<const std::string*> names;
  const Dir* d = &dirs_.at(wd);
  while (d->parent_wd >= 0) {
    names.push_back(&d->name);
    auto it = dirs_.find(d->parent_wd);
    if (it == dirs_.end()) return UniqueFd();
    d = &it->second;
  }
  *depth = static_cast<int>(names.size()) + 1;
  UniqueFd fd(::open(roots_[d->root].path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  for (auto n = names.rbegin(); n != names.rend() && fd.valid(); ++n) {
    fd.reset(::openat(fd.get(), (*n)->c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  }
  return fd;
}

bool IncrementalCopyMeter::Refresh(int wd, const std::string& name, Limits limits) {
  int depth = 0;
  UniqueFd dir = OpenDir(wd, &depth);
  if (!dir.valid()) return true;  // the directory itself went: its parent's event says so
  Dir& d = dirs_.at(wd);
  const std::size_t root = d.root;
  struct stat st;
  auto known = d.children.find(name);
  if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (known == d.children.end()) return true;
    Child gone = known->second;
    d.children.erase(known);
    Forget(gone);
    return true;
  }
  const bool same_dir = known != d.children.end() && known->second.wd >= 0 &&
                        known->second.ino == static_cast<std::uint64_t>(st.st_ino) && S_ISDIR(st.st_mode);
  if (known != d.children.end()) {
    Child old = known->second;
    if (!same_dir) d.children.erase(known);
    if (same_dir) {
      Count(old, false);
    } else {
      Forget(old);
    }
  }
  Child c{Blocks(st), static_cast<std::uint64_t>(st.st_ino), same_dir ? dirs_.at(wd).children[name].wd : -1};
  Count(c, true);
  bool ok = true;
  if (!same_dir && S_ISDIR(st.st_mode) && st.st_dev == roots_[root].dev && !Over(limits)) {
    UniqueFd child(::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (child.valid()) ok = Scan(std::move(child), wd, root, name, depth + 1, limits, &c.wd);
  }
  dirs_.at(wd).children[name] = c;
  struct stat self;
  if (::fstat(dir.get(), &self) == 0) SetOwnBlocks(wd, Blocks(self));  // a directory grows with its entries
  return ok && !Over(limits);
}

void IncrementalCopyMeter::SetOwnBlocks(int wd, std::uint64_t blocks) {
  const Dir& d = dirs_.at(wd);
  std::uint64_t* counted = nullptr;
  if (d.parent_wd < 0) {
    counted = &roots_[d.root].blocks;
  } else if (auto p = dirs_.find(d.parent_wd); p != dirs_.end()) {
    auto c = p->second.children.find(d.name);
    if (c != p->second.children.end() && c->second.wd == wd) counted = &c->second.blocks;
  }
  if (counted == nullptr) return;
  bytes_ = bytes_ - std::min(bytes_, *counted) + blocks;
  *counted = blocks;
}

bool IncrementalCopyMeter::Drain(Limits limits) {
  alignas(struct inotify_event) char buf[64 * 1024];
  std::size_t events = 0;
  for (;;) {
    const ssize_t n = ::read(inotify_.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == EAGAIN;
    if (n == 0) return false;
    for (ssize_t off = 0; off < n;) {
      const auto* ev = reinterpret_cast<const struct inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(struct inotify_event) + ev->len);
      if (++events > kMaxEventsPerMeasure || (ev->mask & IN_Q_OVERFLOW)) return false;
      auto dir = dirs_.find(ev->wd);
      if (dir == dirs_.end()) continue;  // a watch already forgotten
      if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
        if (dir->second.parent_wd < 0) return false;  // a root moved or vanished
        continue;                                     // its parent's event settles it
      }
      if (ev->len == 0) continue;
      if (!Refresh(ev->wd, std::string(ev->name), limits)) return false;
    }
  }
}

}  // namespace seragen::sandbox
