#include "seragen/callgraph/source_set.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "seragen/base/file_util.h"

namespace seragen::callgraph {

namespace fs = std::filesystem;

DirectoryFileSource::DirectoryFileSource(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

Result<std::vector<SourceEntry>> DirectoryFileSource::List() const {
  std::error_code ec;
  if (!fs::is_directory(root_, ec)) {
    return NotFoundError(fmt::format("source directory '{}' does not exist or is not a directory", root_));
  }
  std::vector<SourceEntry> entries;
  fs::recursive_directory_iterator it(root_, fs::directory_options::skip_permission_denied, ec);
  if (ec) return IoError(fmt::format("cannot list '{}': {}", root_, ec.message()));
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return IoError(fmt::format("cannot list '{}': {}", root_, ec.message()));
    const fs::directory_entry& entry = *it;
    std::string name = entry.path().filename().string();
    if (entry.is_symlink(ec)) {
      continue;
    }
    if (entry.is_directory(ec)) {
      if (!name.empty() && name[0] == '.') it.disable_recursion_pending();
      continue;
    }
    if (!entry.is_regular_file(ec)) continue;
    // The iterator yields root_ + "/" + relative; strip the prefix rather than
    // fs::relative (which canonicalizes with several syscalls per path).
    std::string full = entry.path().generic_string();
    if (full.size() <= root_.size() + 1 || full.compare(0, root_.size(), root_) != 0) continue;
    std::string relative = full.substr(root_.size() + (root_ == "/" ? 0 : 1));
    if (relative.empty()) continue;
    entries.push_back({std::move(relative), static_cast<std::uint64_t>(entry.file_size(ec))});
  }
  std::sort(entries.begin(), entries.end(), [](const SourceEntry& a, const SourceEntry& b) { return a.path < b.path; });
  return entries;
}

bool IsRepositoryRelative(std::string_view path) {
  bool escapes =
      path == ".." || path.starts_with("../") || path.find("/../") != std::string_view::npos || path.ends_with("/..");
  return !path.empty() && path[0] != '/' && !escapes;
}

Result<std::string> DirectoryFileSource::Read(const std::string& path) const {
  if (!IsRepositoryRelative(path)) {
    return InvalidArgumentError(fmt::format("'{}' is not a repository-relative path", path));
  }
  return ReadFile(root_ + "/" + path);
}

void InMemoryFileSource::Add(std::string path, std::string content) { files_[std::move(path)] = std::move(content); }

Result<std::vector<SourceEntry>> InMemoryFileSource::List() const {
  std::vector<SourceEntry> entries;
  entries.reserve(files_.size());
  for (const auto& [path, content] : files_) entries.push_back({path, content.size()});
  return entries;
}

Result<std::string> InMemoryFileSource::Read(const std::string& path) const {
  auto it = files_.find(path);
  if (it == files_.end()) return NotFoundError(fmt::format("no file '{}' in the source set", path));
  return it->second;
}

}  // namespace seragen::callgraph
