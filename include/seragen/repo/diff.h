// DiffAgainstBase: the patch of a working copy against its base commit.
//
// The result is what `git add -A && git diff --cached --no-renames BASE` prints
// when run in a throwaway index: tracked changes plus new untracked files
// (ignored files are left out; tracked files stay tracked even if ignored),
// in standard git diff format. Nothing in the copy is modified: the index is
// read but never written and new blobs are hashed into memory only.
// Empty files under `* text=auto` / `eol` attributes are handled (libgit2
// 1.5.1's patch printer aborts on them when it reads the work tree; this code
// never lets it). See docs/REPO.md for the equivalence with the git CLI.
//
// Thread-safety: each call opens its own repository handle, so calls may run
// concurrently on different copies. Calls on the same copy may also overlap
// (read-only), but a copy being modified while it is diffed gives a mix.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/repo/copy_paths.h"

namespace seragen::repo {

struct DiffOptions {
  // Hex digits of object ids on "index" lines. 0 = git's default: at least 7,
  // more for repositories with many packed objects, extended until unique.
  // 40 = full ids (`git diff --full-index`).
  int abbrev = 0;
  // Include applicable binary patches (`git diff --binary`, implies full ids).
  // Otherwise binary changes print "Binary files a/x and b/x differ".
  bool binary = false;
  // Largest patch in bytes; 0 = no limit. A larger patch fails with
  // ResourceExhausted "patch exceeds N bytes". The limit also bounds what is
  // read: every changed path is charged from sizes alone (the work-tree file's
  // lstat, the base blob's object header) for its header line and for content
  // beyond its base size before anything is read, so many large new files
  // (even binary ones) fail early; printed sections are charged exactly. Peak
  // memory is about the changed files' base sizes plus twice the limit.
  std::size_t max_bytes = 0;
};

// `copy` is a pooled working copy (WorkingCopyLease::paths()): its work tree
// is read, its authoritative git directory supplies the index (stat cache
// only, never written), objects and config; the work tree's own `.git` is
// never opened. `base_commit` is a 40-hex commit id present in it (or its
// alternates). Returns "" when the copy equals the base. Errors name the copy
// and the cause.
Result<std::string> DiffAgainstBase(const CopyPaths& copy, std::string_view base_commit,
                                    const DiffOptions& options = {});

}  // namespace seragen::repo
