// Maps the paths an agent writes ("/repo/pkg/mod.py", "pkg/mod.py") onto
// the host working copy, refusing anything that escapes it: absolute paths
// elsewhere, ".." above the root, and symlinks (resolved component by
// component) whose target lies outside.
#pragma once

#include <string>
#include <string_view>

#include "seragen/base/result.h"

namespace seragen::tools {

struct ResolvedPath {
  std::string host;     // absolute host path, symlinks resolved
  std::string visible;  // the same place as the agent sees it, e.g. "/repo/a/b.py"
  bool exists = false;  // false: the last existing ancestor is inside, the rest is missing
};

class WorkspacePaths {
 public:
  // host_root: absolute host path of the copy (no trailing slash needed).
  // visible_root: its path as commands see it ("/repo", or host_root when
  // unconfined).
  WorkspacePaths(std::string host_root, std::string visible_root);

  // Errors (the message is for logs; callers pick the model-facing text by
  // code): kInvalidArgument for an empty path or one with a NUL byte,
  // kPermissionDenied for an escape, kOutOfRange for a symlink loop, kNotFound
  // when a non-final component is a regular file.
  Result<ResolvedPath> Resolve(std::string_view agent_path) const;

  // The visible form of a path relative to the root ("" = the root).
  std::string Visible(std::string_view relative) const;

  const std::string& host_root() const { return host_root_; }
  const std::string& visible_root() const { return visible_root_; }

 private:
  std::string host_root_;
  std::string visible_root_;
};

}  // namespace seragen::tools
