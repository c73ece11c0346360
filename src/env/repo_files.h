// Bounded reads of a repository checkout for profile detection (private to
// the env module). Nothing here follows a symbolic link to a file or reads
// more than kMaxMarkerBytes of one file.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace seragen::env::detail {

inline constexpr std::size_t kMaxMarkerBytes = 256 * 1024;

// The content of the regular file `dir`/`name` (not a symlink), at most
// kMaxMarkerBytes; nullopt when missing, not a regular file or larger.
std::optional<std::string> ReadMarker(const std::string& dir, const std::string& name);

// True when `dir`/`name` is a regular file (not a symlink).
bool IsFile(const std::string& dir, const std::string& name);
// True when `dir`/`name` is a directory (not a symlink).
bool IsDirectory(const std::string& dir, const std::string& name);

// Names in `dir` (at most 4096, sorted), without "." and "..".
std::vector<std::string> ListNames(const std::string& dir);

// The value of `key = value` (or `key: value`) on a line of `section` of an
// INI or TOML text ("[section]"), quotes removed; "" when absent.
std::string SectionValue(const std::string& text, const std::string& section, const std::string& key);

// True when a line of `section` sets `key` (`key = ...` or `key: ...`).
bool SectionHasKey(const std::string& text, const std::string& section, const std::string& key);

}  // namespace seragen::env::detail
