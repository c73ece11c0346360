#include "seragen/verify/sera_lines.h"

#include <cstdint>

namespace seragen::verify {
namespace {

// Length of the well-formed UTF-8 sequence at s[i] (1..4) and its code point,
// or 0 when the byte there does not start one (strict: no overlongs, no
// surrogates, nothing above U+10FFFF; the same set Python's decoder accepts).
std::size_t DecodeAt(std::string_view s, std::size_t i, char32_t* cp) {
  const auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  const std::uint8_t c = b(i);
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  std::size_t need = 0;
  std::uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  char32_t value = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 2;
    value = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 3;
    value = c & 0x0F;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 4;
    value = c & 0x07;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + need > s.size()) return 0;
  for (std::size_t k = 1; k < need; ++k) {
    const std::uint8_t t = b(i + k);
    if (t < (k == 1 ? lo : 0x80) || t > (k == 1 ? hi : 0xBF)) return 0;
    value = (value << 6) | (t & 0x3F);
  }
  *cp = value;
  return need;
}

// Python's str.splitlines() boundaries ("\r\n" is handled by the caller).
bool IsLineBoundary(char32_t cp) {
  return cp == U'\n' || cp == U'\r' || cp == U'\v' || cp == U'\f' || (cp >= 0x1C && cp <= 0x1E) || cp == 0x85 ||
         cp == 0x2028 || cp == 0x2029;
}

// Python's str.isspace() (the characters str.strip() removes).
bool IsPythonSpace(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// `text` is valid UTF-8 (SeraDecode output).
bool AllPythonSpace(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    char32_t cp = 0;
    std::size_t n = DecodeAt(text, i, &cp);
    if (n == 0 || !IsPythonSpace(cp)) return false;
    i += n;
  }
  return true;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

void CountLine(std::string_view line, ChangedLines* out) {
  for (std::string_view header : {"diff", "---", "+++", "@@"}) {
    if (StartsWith(line, header)) return;
  }
  if (line.empty() || (line.front() != '+' && line.front() != '-')) return;
  if (AllPythonSpace(line.substr(1))) return;
  out->Add(std::string(line));
}

}  // namespace

std::string SeraDecode(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size());
  std::size_t i = 0;
  while (i < bytes.size()) {
    char32_t cp = 0;
    std::size_t n = DecodeAt(bytes, i, &cp);
    if (n == 0) {
      const auto c = static_cast<std::uint8_t>(bytes[i]);
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0x0F];
      ++i;
      continue;
    }
    out.append(bytes.substr(i, n));
    i += n;
  }
  return out;
}

ChangedLines ParseSeraLines(std::string_view patch_bytes) {
  const std::string text = SeraDecode(patch_bytes);
  const std::string_view view(text);
  ChangedLines lines;
  std::size_t start = 0;
  std::size_t i = 0;
  while (i < view.size()) {
    char32_t cp = 0;
    std::size_t n = DecodeAt(view, i, &cp);  // never 0: `text` is valid UTF-8
    if (n == 0) n = 1;
    if (!IsLineBoundary(cp)) {
      i += n;
      continue;
    }
    CountLine(view.substr(start, i - start), &lines);
    i += n;
    if (cp == U'\r' && i < view.size() && view[i] == '\n') ++i;
    start = i;
  }
  if (start < view.size()) CountLine(view.substr(start), &lines);
  return lines;
}

std::string_view PythonStrip(std::string_view text) {
  std::size_t first = std::string_view::npos, end = 0;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    std::size_t n = DecodeAt(text, i, &cp);
    bool space = n != 0 && IsPythonSpace(cp);
    n = n == 0 ? 1 : n;
    if (!space) {
      if (first == std::string_view::npos) first = i;
      end = i + n;
    }
    i += n;
  }
  return first == std::string_view::npos ? std::string_view() : text.substr(first, end - first);
}

bool SeraBlankPatch(std::string_view patch_bytes) { return AllPythonSpace(SeraDecode(patch_bytes)); }

}  // namespace seragen::verify
