#include "seragen/base/utf8_chars.h"

#include <catch2/catch.hpp>

#include <string>

namespace seragen {

TEST_CASE("character prefixes and suffixes count code points and never split one", "[utf8]") {
  const std::string text = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z";  // a é € 😀 z: 1+2+3+4+1 bytes
  CHECK(Utf8CharCount(text) == 5);
  CHECK(Utf8CharCount("") == 0);
  CHECK(Utf8PrefixBytes(text, 0) == 0);
  CHECK(Utf8PrefixBytes(text, 2) == 3);
  CHECK(Utf8PrefixBytes(text, 4) == 10);
  CHECK(Utf8PrefixBytes(text, 9) == text.size());
  CHECK(Utf8SuffixStart(text, 0) == text.size());
  CHECK(Utf8SuffixStart(text, 2) == 6);
  CHECK(Utf8SuffixStart(text, 5) == 0);
  CHECK(Utf8SuffixStart(text, 9) == 0);
}

}  // namespace seragen
