#include "publish/dataset_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "seragen/base/file_util.h"

namespace seragen::publish {
namespace {

constexpr std::uint64_t kMaxMarkerBytes = 1 << 20;
constexpr std::string_view kMarkerHeader = "# files written by seragen export --dataset (one per line)";

// 0: absent; 1: a directory (not a link); -1: something else.
int DirectoryState(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT ? 0 : -1;
  return S_ISDIR(st.st_mode) ? 1 : -1;
}

Status NotOurs(const std::string& path, const std::string& why) {
  return FailedPreconditionError("export --dataset: " + path + " " + why +
                                 "; give a new or empty directory (seragen replaces only files it wrote, listed in " +
                                 kDatasetMarkerName + ")");
}

Result<std::set<std::string>> ReadMarker(const std::string& dir) {
  std::set<std::string> listed;
  SG_RETURN_IF_ERROR(ForEachLine(
      dir + "/" + kDatasetMarkerName, kMaxMarkerBytes,
      [&](const FileLine& line) {
        std::string_view text = line.text;
        if (!text.empty() && text != kMarkerHeader) listed.emplace(text);
        return Status::Ok();
      },
      4096));
  return listed;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

Result<std::set<std::string>> ClaimDatasetDir(const std::string& dir, const std::set<std::string>& files) {
  const int state = DirectoryState(dir);
  if (state < 0) return NotOurs(dir, "is not a directory (or is a symbolic link)");
  if (state == 0) SG_RETURN_IF_ERROR(MakeDirs(dir));
  const std::string data = dir + "/data";
  if (DirectoryState(data) < 0) return NotOurs(data, "is not a directory (or is a symbolic link)");
  std::set<std::string> listed;
  if (Exists(dir + "/" + kDatasetMarkerName)) {
    SG_ASSIGN_OR_RETURN(listed, ReadMarker(dir));
  } else {
    std::error_code ec;
    if (!std::filesystem::is_empty(dir, ec) || ec)
      return NotOurs(dir, "exists, is not empty and was not made by seragen");
  }
  for (const std::string& f : files) {
    if (Exists(dir + "/" + f) && listed.count(f) == 0)
      return NotOurs(dir + "/" + f, "exists and was not written by seragen");
  }
  return listed;
}

Status RecordDatasetDir(const std::string& dir, const std::set<std::string>& listed,
                        const std::set<std::string>& written) {
  for (const std::string& f : listed) {
    // Only plain relative names seragen could have written; a marker edited
    // to name anything else is not followed.
    if (written.count(f) || f.find("..") != std::string::npos || f.starts_with("/")) continue;
    if (::unlink((dir + "/" + f).c_str()) != 0 && errno != ENOENT) {
      return IoError("cannot remove the stale " + dir + "/" + f + ": " + std::strerror(errno));
    }
  }
  std::string text = std::string(kMarkerHeader) + "\n";
  for (const std::string& f : written) text += f + "\n";
  return WriteFileAtomic(dir + "/" + kDatasetMarkerName, text);
}

}  // namespace seragen::publish
