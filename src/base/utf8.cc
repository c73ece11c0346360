#include "seragen/base/utf8.h"

#include <cstdint>

namespace seragen {
namespace {

// Length of the well-formed sequence starting at text[i], or 0 if the bytes
// there are ill-formed. On failure, *maximal_subpart gets the length of the
// maximal ill-formed subpart (>= 1), per Unicode 15 §3.9 (Table 3-7).
std::size_t DecodeOne(std::string_view text, std::size_t i, std::size_t* maximal_subpart) {
  const auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const std::size_t n = text.size();
  const std::uint8_t c = b(i);
  *maximal_subpart = 1;
  if (c < 0x80) return 1;
  std::size_t need;
  std::uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    need = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlongs
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 4;
    if (c == 0xF0) lo = 0x90;  // no overlongs
    if (c == 0xF4) hi = 0x8F;  // <= U+10FFFF
  } else {
    return 0;  // 0x80..0xC1, 0xF5..0xFF never start a sequence
  }
  std::size_t k = 1;
  for (; k < need; ++k) {
    if (i + k >= n) break;
    const std::uint8_t t = b(i + k);
    const std::uint8_t tlo = (k == 1) ? lo : 0x80;
    const std::uint8_t thi = (k == 1) ? hi : 0xBF;
    if (t < tlo || t > thi) break;
  }
  if (k == need) return need;
  *maximal_subpart = k;
  return 0;
}

}  // namespace

bool IsValidUtf8(std::string_view text) {
  std::size_t i = 0, sub = 0;
  while (i < text.size()) {
    // Fast path for ASCII runs.
    if (static_cast<std::uint8_t>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = DecodeOne(text, i, &sub);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::string RepairUtf8(std::string_view text) {
  if (IsValidUtf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  std::size_t i = 0, sub = 0;
  while (i < text.size()) {
    std::size_t len = DecodeOne(text, i, &sub);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      i += sub;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::size_t Utf8SafePrefixLength(std::string_view text, std::size_t max_bytes) {
  if (max_bytes >= text.size()) return text.size();
  std::size_t cut = max_bytes;
  // Step back over continuation bytes (at most 3) to the start of the sequence.
  std::size_t back = 0;
  while (cut > 0 && back < 3 && (static_cast<std::uint8_t>(text[cut]) & 0xC0) == 0x80) {
    --cut;
    ++back;
  }
  if (back == 0) return max_bytes;
  // text[cut] may start a sequence that crosses max_bytes: cut before it if it is valid
  // and longer than what fits; ill-formed bytes may be split freely.
  std::size_t sub = 0;
  std::size_t len = DecodeOne(text, cut, &sub);
  if (len != 0 && cut + len > max_bytes) return cut;
  return max_bytes;
}

std::string ClipEcho(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return RepairUtf8(text);
  std::string cut = RepairUtf8(text.substr(0, Utf8SafePrefixLength(text, max_bytes)));
  // Repair may lengthen invalid bytes (1 byte -> 3); keep the bound.
  if (cut.size() > max_bytes) cut.resize(Utf8SafePrefixLength(cut, max_bytes));
  return cut + "...";
}

}  // namespace seragen
