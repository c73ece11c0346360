#include "seragen/journal/shard_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "seragen/base/clock.h"

namespace seragen::journal {
namespace {

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown-host";
  return buf;
}

// The holder description written by the current holder, trimmed; "" if none.
std::string ReadHolder(int fd) {
  char buf[512];
  ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return {};
  std::string text(buf, static_cast<std::size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

}  // namespace

bool ShardLockHeld(const std::string& lock_path) {
  UniqueFd fd(::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd.valid()) return false;
  int rc;
  do {
    rc = ::flock(fd.get(), LOCK_SH | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  return rc != 0 && errno == EWOULDBLOCK;  // closing fd releases a lock taken here
}

Result<ShardLock> ShardLock::Acquire(const std::string& lock_path, std::string_view what) {
  UniqueFd fd(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    return IoError(fmt::format("cannot open lock file {} for {}: {}", lock_path, what, std::strerror(errno)));
  }
  int rc;
  do {
    rc = ::flock(fd.get(), LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    int err = errno;
    std::string holder = err == EWOULDBLOCK ? ReadHolder(fd.get()) : std::string();
    if (err == EWOULDBLOCK) {
      return FailedPreconditionError(
          fmt::format("{} is already being written by another seragen process ({}; lock file {}). "
                      "Only one writer per shard: wait for it to finish or stop it first",
                      what, holder.empty() ? "holder unknown" : holder, lock_path));
    }
    return IoError(fmt::format("cannot lock {} for {}: {}", lock_path, what, std::strerror(err)));
  }
  // Record who holds it; failures here only lose the courtesy text.
  std::string holder =
      fmt::format("pid={} host={} since={}\n", ::getpid(), HostName(), FormatIso8601(SystemClock().WallNow()));
  if (::ftruncate(fd.get(), 0) == 0) {
    [[maybe_unused]] ssize_t n = ::pwrite(fd.get(), holder.data(), holder.size(), 0);
  }
  return ShardLock(std::move(fd), lock_path);
}

ShardLock::ShardLock(ShardLock&& other) noexcept : fd_(std::move(other.fd_)), path_(std::move(other.path_)) {}

ShardLock& ShardLock::operator=(ShardLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::move(other.fd_);
    path_ = std::move(other.path_);
  }
  return *this;
}

ShardLock::~ShardLock() { Release(); }

void ShardLock::Release() {
  if (!fd_.valid()) return;
  [[maybe_unused]] int rc = ::ftruncate(fd_.get(), 0);  // still holding: nobody reads a half state
  fd_.reset();                                          // closing the last descriptor releases the flock
}

}  // namespace seragen::journal
