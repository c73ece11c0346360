#include "seragen/sandbox/copy_usage.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

  // Walks the directory open at `dir_fd` (owned). False once the walk can stop.
  bool Directory(int dir_fd, int depth) {
    if (depth > kMaxCopyDepth) {
      ::close(dir_fd);
      usage.over = true;
      return false;
    }
    DIR* dir = ::fdopendir(dir_fd);
    if (dir == nullptr) {
      ::close(dir_fd);
      return true;
    }
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
      int child = ::openat(::dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child < 0) continue;
      go_on = Directory(child, depth + 1);
    }
    ::closedir(dir);
    return go_on;
  }
};

}  // namespace

Result<CopyUsage> DirectoryCopyMeter::Measure(std::uint64_t limit_bytes, std::uint64_t max_entries) {
  int fd = ::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return IoError("cannot open working copy " + root_ + " to measure it: " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return IoError("cannot stat working copy " + root_ + ": " + std::strerror(err));
  }
  Walk walk{st.st_dev, limit_bytes, max_entries, {}};
  if (walk.Count(st)) walk.Directory(fd, 1);
  else ::close(fd);
  return walk.usage;
}

}  // namespace seragen::sandbox
