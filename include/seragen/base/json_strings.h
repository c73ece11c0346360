// The string tokens of a JSON text (keys and values), decoded and encoded
// again, for code that must read what a JSON text says rather than how it
// is escaped (the secret scanner reads a tool call's arguments this way).
// Total: any bytes, valid JSON or not; nothing throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seragen {

// [begin, end) of one string token, both quotes included.
struct JsonStringToken {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// Every string token of `json` in order. A text that is not JSON gives the
// tokens a lexer finds in it (an unterminated string runs to the end).
std::vector<JsonStringToken> JsonStringTokens(std::string_view json);

// The text a token stands for: escapes decoded (\uXXXX and surrogate pairs to
// UTF-8, a lone surrogate or a malformed escape to U+FFFD); other bytes,
// invalid UTF-8 included, as they are. Quotes, when present, are dropped.
std::string DecodeJsonString(std::string_view token);

// `text` as one JSON string token (quotes included), invalid UTF-8 replaced
// by U+FFFD.
std::string EncodeJsonString(std::string_view text);

// Appends `cp` as UTF-8; `cp` must be a Unicode scalar value (not a surrogate,
// at most 0x10FFFF).
void AppendUtf8(std::string& out, std::uint32_t cp);

}  // namespace seragen
