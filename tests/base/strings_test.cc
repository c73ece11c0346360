#include "seragen/base/strings.h"

#include <catch2/catch.hpp>

#include <cctype>
#include <string>

namespace seragen {

TEST_CASE("IsAsciiSpace and IsAsciiIdentChar agree with the C locale on ASCII and reject high bytes", "[base]") {
  for (int i = 0; i < 256; ++i) {
    char c = static_cast<char>(i);
    bool ascii = i < 0x80;
    INFO(i);
    CHECK(IsAsciiSpace(c) == (ascii && std::isspace(i) != 0));
    CHECK(IsAsciiIdentChar(c) == (ascii && (std::isalnum(i) != 0 || c == '_')));
  }
}

TEST_CASE("TrimAsciiSpace removes all six ASCII spaces at both ends only", "[base]") {
  // (input, trimmed); a UTF-8 no-break space (C2 A0) is not ASCII space.
  const std::pair<std::string_view, std::string_view> kCases[] = {
      {"", ""}, {" \t\n\v\f\r", ""}, {"\v a b \f", "a b"}, {"x", "x"}, {"\xC2\xA0x\xC2\xA0", "\xC2\xA0x\xC2\xA0"}};
  for (const auto& [input, trimmed] : kCases) CHECK(TrimAsciiSpace(input) == trimmed);
}

TEST_CASE("TrimLineSpace keeps vertical tab and form feed", "[base]") {
  CHECK(TrimLineSpace(" \r\n\tabc \n") == "abc");
  CHECK(TrimLineSpace("\vabc\f") == "\vabc\f");
  CHECK(TrimLineSpace(" \n ") == "");
}

TEST_CASE("TrimLeft and TrimRight remove only the given bytes on one side", "[base]") {
  CHECK(TrimLeft("  \tab  ", " \t") == "ab  ");
  CHECK(TrimRight("  ab \n\n", "\n ") == "  ab");
  CHECK(TrimRight("\n\n", "\n") == "");
  CHECK(TrimLeft("\n\n", "\n") == "");
  CHECK(TrimRight("ab", "") == "ab");
  std::string_view text = "xx-yy";
  CHECK(TrimLeft(text, "x").data() == text.data() + 2);  // aliases the input
}

TEST_CASE("AsciiLower maps only A-Z", "[base]") {
  CHECK(AsciiLower("Content-Type: ÄB") == "content-type: Äb");
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  std::string lowered = AsciiLower(all);
  for (int i = 0; i < 256; ++i) {
    char expected = (i >= 'A' && i <= 'Z') ? static_cast<char>(i + 32) : static_cast<char>(i);
    CHECK(lowered[static_cast<std::size_t>(i)] == expected);
  }
}

TEST_CASE("SplitOn keeps empty parts: n separators give n + 1 parts", "[base]") {
  using Parts = std::vector<std::string>;
  CHECK(SplitOn("", "/") == Parts{""});
  CHECK(SplitOn("a", "/") == Parts{"a"});
  CHECK(SplitOn("/a//b/", "/") == Parts{"", "a", "", "b", ""});
  CHECK(SplitOn("a::b:c::", "::") == Parts{"a", "b:c", ""});
}

}  // namespace seragen
