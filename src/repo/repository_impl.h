// Internal to the repo module: Repository's state, shared by the .cc files
// that implement its members.
#pragma once

#include <string>

#include "repo/git_handles.h"
#include "seragen/repo/repository.h"

namespace seragen::repo {

struct Repository::Impl {
  internal::RepoPtr repo;
  std::string git_dir;
  std::string objects_dir;
};

}  // namespace seragen::repo
