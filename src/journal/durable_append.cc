#include "journal/durable_append.h"

#include <unistd.h>

#include <cerrno>

namespace seragen::journal {

DurableAppend AppendDurably(int fd, std::uint64_t size, std::string_view line) {
  DurableAppend out;
  std::size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      out.write_errno = n < 0 ? errno : ENOSPC;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (done < line.size()) {
    out.kind = DurableAppend::kWriteFailed;
    if (done > 0 && ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
      out.kind = DurableAppend::kTruncateFailed;
      out.truncate_errno = errno;
    }
    return out;
  }
  if (::fdatasync(fd) != 0) {
    out.kind = DurableAppend::kSyncFailed;
    out.sync_errno = errno;
  }
  return out;
}

}  // namespace seragen::journal
