#include "cli/user_text.h"

#include "seragen/base/status.h"

namespace seragen::cli {
namespace {

bool WordChar(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

// Length of the "CODE: " prefix at `pos`, 0 when there is none.
std::size_t CodePrefixAt(std::string_view text, std::size_t pos) {
  if (pos > 0 && WordChar(text[pos - 1])) return 0;
  for (int c = static_cast<int>(StatusCode::kInvalidArgument); c <= static_cast<int>(StatusCode::kInternal); ++c) {
    std::string_view name = StatusCodeName(static_cast<StatusCode>(c));
    if (text.substr(pos, name.size()) == name && text.substr(pos + name.size(), 2) == ": ") return name.size() + 2;
  }
  return 0;
}

}  // namespace

std::string WithoutStatusCodeNames(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t skip = text[i] >= 'A' && text[i] <= 'Z' ? CodePrefixAt(text, i) : 0;
    if (skip > 0) {
      i += skip;
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace seragen::cli
