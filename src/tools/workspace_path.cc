#include "seragen/tools/workspace_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <deque>
#include <vector>

namespace seragen::tools {
namespace {

std::string StripTrailingSlashes(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

// Components of a relative path, in order ("" and "." dropped).
std::deque<std::string> SplitComponents(std::string_view path) {
  std::deque<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (!part.empty() && part != ".") parts.emplace_back(part);
    start = end + 1;
  }
  return parts;
}

// If `path` is `root` or below it, the part after root (without the
// leading slash) in *rest and true.
bool StripRoot(std::string_view path, std::string_view root, std::string* rest) {
  if (root == "/") {
    *rest = std::string(path.substr(1));
    return true;
  }
  if (path.substr(0, root.size()) != root) return false;
  if (path.size() == root.size()) {
    rest->clear();
    return true;
  }
  if (path[root.size()] != '/') return false;
  *rest = std::string(path.substr(root.size() + 1));
  return true;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

}  // namespace

WorkspacePaths::WorkspacePaths(std::string host_root, std::string visible_root)
    : host_root_(StripTrailingSlashes(std::move(host_root))),
      visible_root_(StripTrailingSlashes(std::move(visible_root))) {}

std::string WorkspacePaths::Visible(std::string_view relative) const {
  if (relative.empty()) return visible_root_;
  return (visible_root_ == "/" ? "" : visible_root_) + "/" + std::string(relative);
}

Result<ResolvedPath> WorkspacePaths::Resolve(std::string_view agent_path) const {
  if (agent_path.empty()) return InvalidArgumentError("empty path");
  if (agent_path.find('\0') != std::string_view::npos) return InvalidArgumentError("NUL in path");
  std::string relative;
  if (agent_path[0] == '/') {
    if (!StripRoot(agent_path, visible_root_, &relative) &&
        !StripRoot(agent_path, host_root_, &relative)) {
      return PermissionDeniedError(std::string(agent_path) + " is outside " + visible_root_);
    }
  } else {
    relative = std::string(agent_path);
  }

  std::deque<std::string> pending = SplitComponents(relative);
  std::vector<std::string> resolved;  // components below the root, all existing directories
  bool exists = true;
  int links_followed = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part == "..") {
      if (resolved.empty()) {
        return PermissionDeniedError(std::string(agent_path) + " climbs above " + visible_root_);
      }
      if (exists) {
        resolved.pop_back();
        continue;
      }
      resolved.pop_back();  // lexical inside a missing subtree
      continue;
    }
    resolved.push_back(part);
    if (!exists) continue;
    const std::string host = host_root_ + "/" + Join(resolved);
    struct stat st;
    if (::lstat(host.c_str(), &st) != 0) {
      exists = false;  // the rest is created or reported as missing by the caller
      continue;
    }
    if (S_ISLNK(st.st_mode)) {
      if (++links_followed > 40) {
        return OutOfRangeError("too many symbolic links in " + std::string(agent_path));
      }
      char buf[4096];
      ssize_t n = ::readlink(host.c_str(), buf, sizeof buf);
      if (n <= 0) return PermissionDeniedError("unreadable symbolic link " + host);
      std::string target(buf, static_cast<std::size_t>(n));
      resolved.pop_back();
      std::deque<std::string> target_parts;
      if (!target.empty() && target[0] == '/') {
        std::string rest;
        if (!StripRoot(target, visible_root_, &rest) && !StripRoot(target, host_root_, &rest)) {
          return PermissionDeniedError(std::string(agent_path) + " leads through a symbolic link to " +
                                       target + ", outside " + visible_root_);
        }
        resolved.clear();
        target_parts = SplitComponents(rest);
      } else {
        target_parts = SplitComponents(target);
      }
      pending.insert(pending.begin(), target_parts.begin(), target_parts.end());
      continue;
    }
    if (!S_ISDIR(st.st_mode) && !pending.empty()) {
      return NotFoundError(host + " is not a directory");
    }
  }
  ResolvedPath out;
  out.exists = exists;
  const std::string rel = Join(resolved);
  out.host = rel.empty() ? host_root_ : host_root_ + "/" + rel;
  out.visible = Visible(rel);
  return out;
}

}  // namespace seragen::tools
