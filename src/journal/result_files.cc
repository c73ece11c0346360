#include "seragen/journal/result_files.h"

#include <fmt/format.h>

#include <filesystem>
#include <vector>

#include "seragen/base/file_util.h"

namespace seragen::journal {
namespace {

Status ValidateRelative(std::string_view path) {
  if (path.empty() || path.front() == '/') {
    return InvalidArgumentError(fmt::format("result file path must be relative, got '{}'", path));
  }
  std::string_view rest = path;
  while (true) {
    auto slash = rest.find('/');
    std::string_view segment = rest.substr(0, slash);
    if (segment == ".." || segment.empty() || segment == ".") {
      return InvalidArgumentError(
          fmt::format("result file path must be a plain relative path inside the shard directory, got '{}'", path));
    }
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return Status::Ok();
}

bool IsTempName(const std::string& name) {
  auto pos = name.rfind(".tmp.");
  if (pos == std::string::npos || pos + 5 == name.size()) return false;
  // WriteFileAtomic names temp files "<name>.tmp.<pid>.<counter>".
  for (std::size_t i = pos + 5; i < name.size(); ++i) {
    if ((name[i] < '0' || name[i] > '9') && name[i] != '.') return false;
  }
  return true;
}

}  // namespace

Status MakeDirsDurable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Find the missing ancestors, outermost first.
  std::vector<fs::path> missing;
  for (fs::path p = fs::path(path).lexically_normal(); !p.empty(); p = p.parent_path()) {
    if (fs::exists(p, ec)) break;
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  SG_RETURN_IF_ERROR(MakeDirs(path));
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    fs::path parent = it->parent_path();
    SG_RETURN_IF_ERROR(SyncDir(parent.empty() ? "." : parent.string()));
  }
  return Status::Ok();
}

Status WriteResultFile(const std::string& shard_dir, std::string_view relative_path, std::string_view bytes) {
  SG_RETURN_IF_ERROR(ValidateRelative(relative_path));
  std::string full = shard_dir + "/" + std::string(relative_path);
  SG_RETURN_IF_ERROR(MakeDirsDurable(std::filesystem::path(full).parent_path().string()));
  return WriteFileAtomic(full, bytes);
}

Result<std::string> ReadResultFile(const std::string& shard_dir, std::string_view relative_path) {
  SG_RETURN_IF_ERROR(ValidateRelative(relative_path));
  return ReadRegularFile(shard_dir + "/" + std::string(relative_path), kMaxResultFileBytes);
}

Result<std::size_t> RemoveStaleTempFiles(const std::string& shard_dir, std::string_view subdir) {
  namespace fs = std::filesystem;
  fs::path root = fs::path(shard_dir) / std::string(subdir);
  std::error_code ec;
  if (!fs::exists(root, ec)) return std::size_t{0};
  std::size_t removed = 0;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || !IsTempName(it->path().filename().string())) continue;
    if (fs::remove(it->path(), ec)) ++removed;
    if (ec) break;
  }
  if (ec) return IoError(fmt::format("cannot clean temp files under {}: {}", root.string(), ec.message()));
  return removed;
}

}  // namespace seragen::journal
