#include "seragen/sandbox/copy_usage.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "seragen/base/unique_fd.h"

namespace seragen::sandbox {
namespace {

struct Walk {
  dev_t dev;
  std::uint64_t limit_bytes;
  std::uint64_t max_entries;
  CopyUsage usage;

  // Adds one entry; false once the walk can stop.
  bool Count(const struct stat& st) {
    usage.bytes += static_cast<std::uint64_t>(st.st_blocks) * 512u;
    usage.entries += 1;
    if (usage.bytes > limit_bytes || usage.entries > max_entries) usage.over = true;
    return !usage.over;
  }

  // Walks the directory open at `dir_fd`. False once the walk can stop.
  bool Directory(UniqueFd dir_fd, int depth) {
    if (depth > kMaxCopyDepth) {
      usage.over = true;
      return false;
    }
    DIR* dir = ::fdopendir(dir_fd.get());
    if (dir == nullptr) return true;
    dir_fd.release();  // closedir closes it
    bool go_on = true;
    while (go_on) {
      errno = 0;
      dirent* e = ::readdir(dir);
      if (e == nullptr) break;
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      struct stat st;
      if (::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      go_on = Count(st);
      if (!go_on || !S_ISDIR(st.st_mode) || st.st_dev != dev) continue;
      UniqueFd child(::openat(::dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!child.valid()) continue;
      go_on = Directory(std::move(child), depth + 1);
    }
    ::closedir(dir);
    return go_on;
  }
};

}  // namespace

Result<CopyUsage> DirectoryCopyMeter::Measure(std::uint64_t limit_bytes, std::uint64_t max_entries) {
  CopyUsage usage;
  for (const std::string& root : roots_) {
    UniqueFd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) return IoError("cannot open working copy " + root + " to measure it: " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) {
      int err = errno;
      return IoError("cannot stat working copy " + root + ": " + std::strerror(err));
    }
    // Each root is walked on its own file system; the counts add up.
    Walk walk{st.st_dev, limit_bytes, max_entries, usage};
    if (walk.Count(st)) walk.Directory(std::move(fd), 1);
    usage = walk.usage;
    if (usage.over) break;
  }
  return usage;
}

}  // namespace seragen::sandbox
