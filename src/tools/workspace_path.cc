#include "seragen/tools/workspace_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include <deque>
#include <vector>

#include "seragen/base/strings.h"

namespace seragen::tools {
namespace {

std::string StripTrailingSlashes(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

// Components of a relative path, in order ("" and "." dropped).
std::deque<std::string> SplitComponents(std::string_view path) {
  std::deque<std::string> parts;
  for (std::string& part : SplitOn(path, "/")) {
    if (!part.empty() && part != ".") parts.push_back(std::move(part));
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
    if (!StripRoot(agent_path, visible_root_, &relative) && !StripRoot(agent_path, host_root_, &relative)) {
      return PermissionDeniedError(std::string(agent_path) + " is outside " + visible_root_);
    }
  } else {
    relative = std::string(agent_path);
  }

  std::deque<std::string> pending = SplitComponents(relative);
  std::vector<std::string> resolved;  // components below the root, all existing directories
  bool exists = true;
  std::size_t first_missing = 0;  // index in `resolved` of the first missing component
  int links_followed = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part == "..") {
      if (resolved.empty()) {
        return PermissionDeniedError(std::string(agent_path) + " climbs above " + visible_root_);
      }
      resolved.pop_back();
      // Climbing back out of a missing subtree: check what follows again.
      if (!exists && resolved.size() <= first_missing) exists = true;
      continue;
    }
    resolved.push_back(part);
    if (!exists) continue;
    const std::string host = host_root_ + "/" + Join(resolved);
    struct stat st;
    if (::lstat(host.c_str(), &st) != 0) {
      exists = false;  // the rest is created or reported as missing by the caller
      first_missing = resolved.size() - 1;
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
          return PermissionDeniedError(std::string(agent_path) + " leads through a symbolic link to " + target +
                                       ", outside " + visible_root_);
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
  // Defence in depth: the deepest existing directory or file must really lie
  // inside the root once the kernel resolves it.
  {
    std::vector<std::string> existing(resolved.begin(),
                                      exists ? resolved.end() : resolved.begin() + static_cast<long>(first_missing));
    const std::string rel_existing = Join(existing);
    const std::string probe = rel_existing.empty() ? host_root_ : host_root_ + "/" + rel_existing;
    char real_probe[PATH_MAX], real_root[PATH_MAX];
    if (::realpath(probe.c_str(), real_probe) && ::realpath(host_root_.c_str(), real_root)) {
      const std::string p(real_probe), r(real_root);
      if (p != r && p.rfind(r == "/" ? r : r + "/", 0) != 0) {
        return PermissionDeniedError(std::string(agent_path) + " resolves to " + p + ", outside " + r);
      }
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
