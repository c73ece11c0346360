// CopyPaths: where one working copy lives.
//
// `work_tree` is what the sandbox bind-mounts: code running there can write
// every byte below it, including a disposable `.git` that serves its own git
// commands and that host code never opens. `git_dir` is the copy's
// authoritative git directory (HEAD, index, config, alternates) outside the
// work tree; host-side libgit2 opens only it, with the work directory forced
// to `work_tree`, so nothing the agent writes can configure host-side git.
#pragma once

#include <string>

namespace seragen::repo {

struct CopyPaths {
  std::string work_tree;
  std::string git_dir;
  // The lease's /tmp on the host (shown at /tmp in its sandbox, so a file
  // written there lasts for the whole rollout): created empty when the copy
  // is handed out, deleted when it is given back. "" = none.
  std::string tmp_dir;
};

}  // namespace seragen::repo
