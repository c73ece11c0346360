#include "seragen/env/bytecode_layer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "seragen/base/unique_fd.h"

namespace seragen::env {
namespace {

// Most mounts stacked at one merged directory that Clear takes off.
constexpr int kMaxStacked = 16;

// A field of /proc/self/mountinfo with its octal escapes (\040 for a space) undone.
std::string Unescape(const std::string& field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      const std::string oct = field.substr(i + 1, 3);
      if (oct.size() == 3 && std::all_of(oct.begin(), oct.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        out += static_cast<char>(std::stoi(oct, nullptr, 8));
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

// overlayfs splits its options at ',' and its lower layers at ':', and takes
// '\' as an escape: a path with one of those is refused rather than quoted.
bool SafeForOptions(const std::string& path) { return path.find_first_of(",:\\") == std::string::npos; }

Status MakeOwnedDir(const std::string& path, mode_t mode, uid_t uid, gid_t gid) {
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) {
    return IoError("cannot create " + path + ": " + std::strerror(errno));
  }
  if (::lchown(path.c_str(), uid, gid) != 0 || ::chmod(path.c_str(), mode) != 0) {
    return IoError("cannot give " + path + " to uid " + std::to_string(uid) + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

// The layer's directories: `dir` (root, traversable for the slot uid, which
// bwrap resolves the bind as) with its own tmpfs of `max_bytes`, holding
// work/ (root's), upper/ and its skeleton (the slot uid's), merged/.
Status MakeLayerDirs(const BytecodeLayerOptions& o) {
  SG_RETURN_IF_ERROR(MakeOwnedDir(o.dir, 0711, 0, 0));
  const std::string size =
      "size=" + std::to_string(o.max_bytes) + ",nr_inodes=" + std::to_string(o.max_inodes) + ",mode=0711,uid=0,gid=0";
  if (::mount("tmpfs", o.dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, size.c_str()) != 0) {
    return UnavailableError("cannot mount the bytecode layer's tmpfs at " + o.dir + ": " + std::strerror(errno));
  }
  SG_RETURN_IF_ERROR(MakeOwnedDir(o.dir + "/work", 0700, 0, 0));
  SG_RETURN_IF_ERROR(MakeOwnedDir(o.dir + "/merged", 0755, 0, 0));
  const std::string upper = o.dir + "/upper";
  SG_RETURN_IF_ERROR(MakeOwnedDir(upper, 0700, o.uid, o.gid));
  for (const std::string& rel : o.skeleton) {  // in a fresh tmpfs: nothing there to follow
    if (rel.empty() || rel[0] == '/' || rel.find("..") != std::string::npos) continue;
    const std::string path = upper + "/" + rel;
    if ((::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) || ::lchown(path.c_str(), o.uid, o.gid) != 0) {
      return IoError("cannot make the bytecode layer's directory " + path + ": " + std::strerror(errno));
    }
  }
  return Status::Ok();
}

}  // namespace

bool IsMountPoint(const std::string& path) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, mount_point;
    if (fields >> id >> parent >> dev >> root >> mount_point && Unescape(mount_point) == path) return true;
  }
  return false;
}

Status ClearBytecodeLayer(const std::string& dir) {
  for (const std::string& mount_point : {dir + "/merged", dir}) {  // the overlay, then its tmpfs
    for (int i = 0; i < kMaxStacked && ::umount2(mount_point.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) == 0; ++i) {
    }
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return Status::Ok();
  if (IsMountPoint(dir + "/merged") || IsMountPoint(dir)) {
    return FailedPreconditionError("the bytecode layer " + dir + " stays mounted");
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);  // never follows a link
  if (ec) return IoError("cannot remove the bytecode layer " + dir + ": " + ec.message());
  return Status::Ok();
}

void ClearFreeBytecodeLayers(const std::string& dir) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string path = it->path().string();
    if (it->path().extension() != ".pyc" || it->symlink_status(ec).type() != std::filesystem::file_type::directory) {
      continue;
    }
    const std::string lock_path = path.substr(0, path.size() - 4) + ".lock";
    UniqueFd lock(::open(lock_path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW));
    if (lock.valid() && ::flock(lock.get(), LOCK_EX | LOCK_NB) == 0) (void)ClearBytecodeLayer(path);
  }
}

Result<std::unique_ptr<BytecodeLayer>> BytecodeLayer::Mount(const BytecodeLayerOptions& o) {
  if (::geteuid() != 0) return FailedPreconditionError("mounting a bytecode layer needs root");
  SG_RETURN_IF_ERROR(ClearBytecodeLayer(o.dir));  // a layer a killed process left
  if (o.lowers.empty()) return InvalidArgumentError("a bytecode layer needs a lower layer");
  std::string lowerdir;
  for (const std::string& path : o.lowers) {
    if (!SafeForOptions(path))
      return InvalidArgumentError("overlayfs cannot take a path with ',', ':' or '\\': " + path);
    lowerdir += (lowerdir.empty() ? "" : ":") + path;
  }
  if (!SafeForOptions(o.dir))
    return InvalidArgumentError("overlayfs cannot take a path with ',', ':' or '\\': " + o.dir);
  std::unique_ptr<BytecodeLayer> layer(new BytecodeLayer(o.dir));  // from here on, a failure wipes what was made
  SG_RETURN_IF_ERROR(MakeLayerDirs(o));
  const std::string options = "lowerdir=" + lowerdir + ",upperdir=" + o.dir + "/upper,workdir=" + o.dir + "/work";
  if (::mount("overlay", layer->merged().c_str(), "overlay", MS_NOSUID | MS_NODEV, options.c_str()) != 0) {
    return UnavailableError("cannot mount the bytecode layer (overlayfs) at " + layer->merged() + ": " +
                            std::strerror(errno));
  }
  return layer;
}

Status BytecodeLayer::Release() {
  if (dir_.empty()) return Status::Ok();
  const std::string dir = std::move(dir_);
  dir_.clear();
  return ClearBytecodeLayer(dir);
}

Result<std::vector<std::string>> EntryDirectories(const std::string& entry, std::size_t max_dirs) {
  std::vector<std::string> dirs;
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(entry, std::filesystem::directory_options::none, ec);
  for (std::filesystem::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    if (it->symlink_status(ec).type() != std::filesystem::file_type::directory) continue;
    if (dirs.size() >= max_dirs)
      return ResourceExhaustedError("the bytecode entry " + entry + " has too many directories");
    dirs.push_back(it->path().lexically_relative(entry).string());
  }
  if (ec) return IoError("cannot list the bytecode entry " + entry + ": " + ec.message());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

}  // namespace seragen::env
