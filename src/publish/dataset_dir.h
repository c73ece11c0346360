// Ownership of an `export --dataset DIR` directory: seragen writes into a
// directory only when it made it (or found it empty), and then replaces only
// its own files. DIR/.seragen-dataset lists the files the last export wrote;
// a rerun writes the new set, removes listed files it did not write again
// (a format no longer requested leaves no stale data), and never touches a
// file it did not list (a README.md of the user's is refused, not replaced).
#pragma once

#include <set>
#include <string>

#include "seragen/base/result.h"

namespace seragen::publish {

// The marker file, relative to DIR.
inline constexpr const char* kDatasetMarkerName = ".seragen-dataset";

// Checks that `files` (paths relative to `dir`) may be written, creating
// `dir` when it does not exist, and returns the files the marker lists.
// FailedPrecondition naming the path when `dir` or `dir/data` is not a
// plain directory (a symlink included), when `dir` holds entries but no
// marker, or when a file of `files` exists without being listed.
Result<std::set<std::string>> ClaimDatasetDir(const std::string& dir, const std::set<std::string>& files);

// After `written` are in place: removes the files `listed` before and not
// written now, and writes the marker listing `written`.
Status RecordDatasetDir(const std::string& dir, const std::set<std::string>& listed,
                        const std::set<std::string>& written);

}  // namespace seragen::publish
