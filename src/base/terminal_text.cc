#include "seragen/base/terminal_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "seragen/base/utf8.h"

namespace seragen {
namespace {

// Bytes of the UTF-8 sequence a lead byte starts (the text is repaired: valid).
std::size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  return 2;
}

char32_t CodePoint(std::string_view s) {
  auto byte = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[k])); };
  if (s.size() == 1) return byte(0);
  char32_t cp = byte(0) & (s.size() == 2 ? 0x1f : s.size() == 3 ? 0x0f : 0x07);
  for (std::size_t k = 1; k < s.size(); ++k) cp = (cp << 6) | (byte(k) & 0x3f);
  return cp;
}

bool IsBidiControl(char32_t cp) {
  return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

bool MustEscape(char32_t cp, TerminalField field) {
  if (cp == '\n' || cp == '\t') return field == TerminalField::kLine;
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || IsBidiControl(cp);
}

std::string Escaped(char32_t cp, TerminalField field) {
  auto value = static_cast<std::uint32_t>(cp);
  if (field == TerminalField::kJson) return fmt::format("\\u{:04x}", value);
  if (cp < 0x80) return fmt::format("\\x{:02x}", value);
  return fmt::format("\\u{{{:04x}}}", value);
}

}  // namespace

std::string TerminalSafe(std::string_view text, std::size_t max_bytes, TerminalField field) {
  std::size_t keep = Utf8SafePrefixLength(text, max_bytes);
  std::string repaired = RepairUtf8(text.substr(0, keep));
  std::string out;
  out.reserve(repaired.size());
  std::size_t i = 0;
  while (i < repaired.size()) {
    std::size_t length = SequenceLength(static_cast<unsigned char>(repaired[i]));
    std::string_view sequence(repaired.data() + i, std::min(length, repaired.size() - i));
    char32_t cp = CodePoint(sequence);
    if (MustEscape(cp, field)) {
      out += Escaped(cp, field);
    } else {
      out += sequence;
    }
    i += sequence.size();
  }
  if (keep < text.size()) out += fmt::format("… [{} more bytes]", text.size() - keep);
  return out;
}

}  // namespace seragen
