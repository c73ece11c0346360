#include "seragen/base/utf8_chars.h"

#include <cstdint>

namespace seragen {
namespace {

bool IsContinuation(char c) { return (static_cast<std::uint8_t>(c) & 0xC0) == 0x80; }

}  // namespace

std::size_t Utf8CharCount(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += IsContinuation(c) ? 0 : 1;
  return n;
}

std::size_t Utf8PrefixBytes(std::string_view text, std::size_t chars) {
  std::size_t at = 0;
  for (std::size_t seen = 0; at < text.size(); ++at) {
    if (!IsContinuation(text[at]) && seen++ == chars) break;
  }
  return at;
}

std::size_t Utf8SuffixStart(std::string_view text, std::size_t chars) {
  if (chars == 0) return text.size();
  std::size_t at = text.size();
  for (std::size_t seen = 0; at > 0;) {
    --at;
    if (!IsContinuation(text[at]) && ++seen == chars) break;
  }
  return at;
}

}  // namespace seragen
