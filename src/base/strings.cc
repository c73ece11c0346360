#include "seragen/base/strings.h"

namespace seragen {

bool IsAsciiSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

bool IsAsciiIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string_view TrimAsciiSpace(std::string_view s) {
  while (!s.empty() && IsAsciiSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsAsciiSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view TrimLineSpace(std::string_view s) { return TrimRight(TrimLeft(s, kLineSpace), kLineSpace); }

std::string_view TrimLeft(std::string_view s, std::string_view chars) {
  std::size_t b = s.find_first_not_of(chars);
  return b == std::string_view::npos ? s.substr(s.size()) : s.substr(b);
}

std::string_view TrimRight(std::string_view s, std::string_view chars) {
  std::size_t e = s.find_last_not_of(chars);
  return e == std::string_view::npos ? s.substr(0, 0) : s.substr(0, e + 1);
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::vector<std::string> SplitOn(std::string_view s, std::string_view separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t end = s.find(separator, start);
    if (end == std::string_view::npos) {
      parts.emplace_back(s.substr(start));
      return parts;
    }
    parts.emplace_back(s.substr(start, end - start));
    start = end + separator.size();
  }
}

}  // namespace seragen
