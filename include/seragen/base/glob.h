// Path glob matching for include/exclude filters ("vendor/**", "**/*_test.py").
//
// Syntax: `*` any run of characters except '/', `?` one character except '/',
// `[abc]`, `[a-z]`, `[!x]` character classes, `**` as a whole path segment
// matches zero or more segments ("a/**/b" matches "a/b" and "a/x/y/b"; a
// trailing "dir/**" matches everything under dir). A pattern without '/'
// matches the final path component anywhere ("*.min.js" == "**/*.min.js"),
// as in .gitignore. Paths are repository-relative with '/' separators.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace seragen {

bool GlobMatch(std::string_view pattern, std::string_view path);

// True when any pattern matches.
bool GlobMatchAny(const std::vector<std::string>& patterns, std::string_view path);

}  // namespace seragen
