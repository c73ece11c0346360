// Counting and cutting valid UTF-8 text by characters (code points, what
// Python's len() counts), for caps that SWE-agent states in characters.
#pragma once

#include <cstddef>
#include <string_view>

namespace seragen {

// Characters of valid UTF-8 text.
std::size_t Utf8CharCount(std::string_view text);

// Bytes of the first `chars` characters of valid UTF-8 text (all of it when
// it has fewer): a prefix that never ends inside a character.
std::size_t Utf8PrefixBytes(std::string_view text, std::size_t chars);

// Offset where the last `chars` characters of valid UTF-8 text start (0 when
// it has fewer): a suffix that never starts inside a character.
std::size_t Utf8SuffixStart(std::string_view text, std::size_t chars);

}  // namespace seragen
