#include "seragen/env/group_cache_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "seragen/base/file_util.h"
#include "seragen/base/unique_fd.h"

namespace seragen::env {
namespace {

// `dir` made if missing, refused if a link or not this user's, then given
// `group` (as root) and `mode`.
Status CloseDir(const std::string& dir, gid_t group, mode_t mode) {
  SG_RETURN_IF_ERROR(MakeDirs(dir));
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0) {
    return FailedPreconditionError("the cache directory " + dir + " is not a directory (or is a link)");
  }
  const bool root = ::geteuid() == 0;
  if (st.st_uid != ::geteuid()) {
    return FailedPreconditionError("the cache directory " + dir + " belongs to uid " + std::to_string(st.st_uid) +
                                   ", not to this user");
  }
  if ((root && ::fchown(fd.get(), 0, group) != 0) || ::fchmod(fd.get(), mode) != 0) {
    return IoError("cannot close the cache directory " + dir + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace

Status GuardCacheDir(const std::string& dir, gid_t group) {
  return CloseDir(dir, group, ::geteuid() == 0 ? 0750 : 0700);
}

Result<std::string> GuardGroupCacheDir(const std::string& dir, gid_t group) {
  if (::geteuid() != 0) {
    SG_RETURN_IF_ERROR(GuardCacheDir(dir, group));
    return dir;
  }
  SG_RETURN_IF_ERROR(CloseDir(dir, 0, 0711));
  const std::string mine = dir + "/group-" + std::to_string(group);
  SG_RETURN_IF_ERROR(GuardCacheDir(mine, group));
  return mine;
}

}  // namespace seragen::env
