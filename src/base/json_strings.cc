#include "seragen/base/json_strings.h"

#include <nlohmann/json.hpp>

namespace seragen {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Four hex digits at `at`, or -1.
long Hex4(std::string_view s, std::size_t at) {
  if (at + 4 > s.size()) return -1;
  long v = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    const char c = s[i];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// Decodes the \u escape at body[i] (i at the 'u'); returns the index after it.
std::size_t DecodeUnicode(std::string_view body, std::size_t i, std::string& out) {
  const long hi = Hex4(body, i + 1);
  if (hi < 0) {
    out += kReplacement;
    return i + 1;
  }
  std::size_t next = i + 5;
  if (hi >= 0xD800 && hi <= 0xDBFF && next + 1 < body.size() && body[next] == '\\' && body[next + 1] == 'u') {
    const long lo = Hex4(body, next + 2);
    if (lo >= 0xDC00 && lo <= 0xDFFF) {
      AppendUtf8(
          out, 0x10000 + ((static_cast<std::uint32_t>(hi) - 0xD800) << 10) + (static_cast<std::uint32_t>(lo) - 0xDC00));
      return next + 6;
    }
  }
  if (hi >= 0xD800 && hi <= 0xDFFF) out += kReplacement;
  else AppendUtf8(out, static_cast<std::uint32_t>(hi));
  return next;
}

}  // namespace

void AppendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::vector<JsonStringToken> JsonStringTokens(std::string_view json) {
  std::vector<JsonStringToken> out;
  std::size_t i = 0;
  while (i < json.size()) {
    if (json[i] != '"') {
      ++i;
      continue;
    }
    const std::size_t begin = i++;
    while (i < json.size() && json[i] != '"') i += json[i] == '\\' ? 2 : 1;
    i = std::min(i + 1, json.size());
    out.push_back({begin, i});
  }
  return out;
}

std::string DecodeJsonString(std::string_view token) {
  std::string_view body = token;
  if (!body.empty() && body.front() == '"') body.remove_prefix(1);
  if (!body.empty() && body.back() == '"') {  // a closing quote: an even run of backslashes before it
    std::size_t slashes = 0;
    while (slashes + 1 < body.size() && body[body.size() - 2 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) body.remove_suffix(1);
  }
  std::string out;
  out.reserve(body.size());
  std::size_t i = 0;
  while (i < body.size()) {
    if (body[i] != '\\' || i + 1 >= body.size()) {
      out += body[i++];
      continue;
    }
    // The two-character escapes and what they stand for, by position.
    static constexpr std::string_view kEscapes = "ntrbf\"\\/", kMeaning = "\n\t\r\b\f\"\\/";
    const char e = body[i + 1];
    if (e == 'u') {
      i = DecodeUnicode(body, i + 1, out);
      continue;
    }
    const std::size_t k = kEscapes.find(e);
    if (k == std::string_view::npos) out += kReplacement;
    else out += kMeaning[k];
    i += 2;
  }
  return out;
}

std::string EncodeJsonString(std::string_view text) {
  return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace seragen
