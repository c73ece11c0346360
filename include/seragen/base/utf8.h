// UTF-8 validation and repair for text that comes from outside (command
// output, model output, repository files) before it enters JSON.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace seragen {

// True when `text` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool IsValidUtf8(std::string_view text);

// Copy of `text` with each maximal ill-formed subpart replaced by U+FFFD
// (the Unicode "substitution of maximal subparts" practice, as browsers do).
// Valid input is returned unchanged.
std::string RepairUtf8(std::string_view text);

// Largest n <= max_bytes such that text[0, n) does not end inside a
// multi-byte sequence that is valid in `text`. For cutting output at a cap.
std::size_t Utf8SafePrefixLength(std::string_view text, std::size_t max_bytes);

// Outside text echoed back inside a message (a path or name the agent sent):
// repaired, and when longer than `max_bytes` cut at a character boundary with
// "..." appended, so an argument of any size echoes as at most max_bytes + 3.
std::string ClipEcho(std::string_view text, std::size_t max_bytes);

}  // namespace seragen
