// Shannon entropy of a byte string, the "random-looking" test of secret rules.
#pragma once

#include <string_view>

namespace seragen::secrets {

// Bits per byte over the byte frequencies of `text` (0 for empty text; at
// most log2(text.size()) and at most 8). A 32-character random base62 key
// scores ~4.6; English words and identifiers ~3-3.5; hex digests <= 4.
double ShannonBitsPerByte(std::string_view text);

// True when `text` holds at least one ASCII letter and one ASCII digit.
bool HasLetterAndDigit(std::string_view text);

}  // namespace seragen::secrets
