// Whether a commit can be checked out into a working copy at all, asked once
// per repository when a run is planned: content libgit2 refuses to check out
// would otherwise fail every task of the repository, on every rerun, as an
// infrastructure failure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "seragen/base/status.h"

namespace seragen::repo {

// Longest repository-relative path a working copy can hold: PATH_MAX (4096
// bytes with its NUL) less 1,024 bytes for the pool directory and the copy's
// name in front of it.
inline constexpr std::size_t kMaxCheckoutPathBytes = 3072;
// Longest file or directory name (NAME_MAX on Linux file systems).
inline constexpr std::size_t kMaxPathComponentBytes = 255;

// OK when every tracked path of `commit` (40-hex) in the repository whose git
// directory is `git_dir` fits the two limits above, libgit2 accepts every
// path (a dry run of the checkout: no ".git" component in any case, ...) and,
// when the commit has submodules (gitlinks), libgit2 accepts its .gitmodules
// (it refuses, for example, `update = !command`; seragen never runs such a
// command nor checks submodules out), tried by checking out only .gitmodules
// and the gitlinks. The trials run in a new directory in `scratch_parent`,
// removed again. FailedPrecondition naming the offending path and the reason
// otherwise.
Status CheckCheckoutable(const std::string& git_dir, std::string_view commit, const std::string& scratch_parent);

}  // namespace seragen::repo
