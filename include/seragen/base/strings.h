// Small ASCII text helpers shared by every module. All functions are total
// (any bytes in, no exceptions) and locale-independent: bytes >= 0x80 are never
// space, letters or digits, so UTF-8 text passes through unchanged.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace seragen {

// Characters trimmed by TrimLineSpace: the whitespace of line-oriented text.
inline constexpr std::string_view kLineSpace = " \t\r\n";

// The six ASCII whitespace bytes of the "C" locale: ' ', \t, \n, \v, \f, \r.
bool IsAsciiSpace(char c);

// ASCII letter, digit or '_' (the identifier characters common to every
// language we handle; callers add their own extras such as '$').
bool IsAsciiIdentChar(char c);

// Removes leading and trailing IsAsciiSpace bytes. The view aliases `s`.
std::string_view TrimAsciiSpace(std::string_view s);

// Removes leading and trailing bytes of kLineSpace only (keeps \v and \f).
// The view aliases `s`.
std::string_view TrimLineSpace(std::string_view s);

// Removes leading (TrimLeft) or trailing (TrimRight) bytes that occur in
// `chars`. The view aliases `s`.
std::string_view TrimLeft(std::string_view s, std::string_view chars);
std::string_view TrimRight(std::string_view s, std::string_view chars);

// Copy with ASCII A-Z mapped to a-z; other bytes unchanged.
std::string AsciiLower(std::string_view s);

// The parts of `s` between occurrences of `separator` (not empty), empty
// parts included: n separators give n + 1 parts ("" gives one empty part).
std::vector<std::string> SplitOn(std::string_view s, std::string_view separator);

}  // namespace seragen
