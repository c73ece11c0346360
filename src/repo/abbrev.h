// Internal to the repo module: abbreviation of object ids the way git's
// `find_unique_abbrev` does it for diff "index" lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "repo/git_handles.h"

namespace seragen::repo {

// Number of objects in all pack files reachable from `objects_dir` (its own
// packs plus those of objects/info/alternates, recursively), read from the pack
// index headers. This is git's `approximate_object_count` (loose objects are
// not counted, as in git).
std::uint64_t ApproximatePackedObjectCount(const std::string& objects_dir);

// git's default abbreviation for `count` packed objects: ceil(bits/2) hex
// digits where bits = msb(count) + 1, and at least 7.
int DefaultAbbrevLength(std::uint64_t count);

class Abbreviator {
 public:
  // requested: 0 = git's auto length (computed lazily from objects_dir), else
  // the fixed minimum length (40 = full ids). Prefixes are extended until no
  // other object in `odb` shares them.
  Abbreviator(git_odb* odb, std::string objects_dir, int requested);
  std::string Abbreviate(const git_oid& oid) const;

 private:
  int MinimumLength() const;
  git_odb* odb_;
  std::string objects_dir_;
  int requested_;
  mutable int auto_length_ = -1;
};

}  // namespace seragen::repo
