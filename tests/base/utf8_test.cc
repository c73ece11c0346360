#include "seragen/base/utf8.h"

#include <catch2/catch.hpp>

namespace seragen {

static const std::string kFFFD = "\xEF\xBF\xBD";

TEST_CASE("valid UTF-8 passes unchanged", "[utf8]") {
  for (std::string s : {std::string(""), std::string("plain ascii"),
                        std::string("caf\xC3\xA9"),       // é
                        std::string("\xE2\x82\xAC"),      // €
                        std::string("\xF0\x9F\x98\x80"),  // 😀
                        std::string("\xF4\x8F\xBF\xBF"),  // U+10FFFF
                        std::string("nul\0inside", 10)}) {
    CHECK(IsValidUtf8(s));
    CHECK(RepairUtf8(s) == s);
  }
}

TEST_CASE("truncated sequences become one U+FFFD each", "[utf8]") {
  CHECK_FALSE(IsValidUtf8("\xE2\x82"));
  CHECK(RepairUtf8("a\xE2\x82") == "a" + kFFFD);      // cut at end
  CHECK(RepairUtf8("\xF0\x9F\x98z") == kFFFD + "z");  // 3 of 4 bytes, then ASCII
  CHECK(RepairUtf8("\xC3") == kFFFD);
  CHECK(RepairUtf8("\xE2\x82\xE2\x82\xAC") == kFFFD + "\xE2\x82\xAC");
}

TEST_CASE("overlong encodings are rejected byte by byte", "[utf8]") {
  CHECK_FALSE(IsValidUtf8("\xC0\xAF"));  // overlong '/'
  CHECK(RepairUtf8("\xC0\xAF") == kFFFD + kFFFD);
  CHECK_FALSE(IsValidUtf8("\xE0\x80\xAF"));  // 3-byte overlong
  CHECK(RepairUtf8("\xE0\x80\xAF") == kFFFD + kFFFD + kFFFD);
  CHECK_FALSE(IsValidUtf8("\xF0\x80\x80\xAF"));  // 4-byte overlong
  CHECK(RepairUtf8("\xF0\x80\x80\xAF") == kFFFD + kFFFD + kFFFD + kFFFD);
}

TEST_CASE("surrogates, out-of-range and stray bytes", "[utf8]") {
  CHECK_FALSE(IsValidUtf8("\xED\xA0\x80"));  // U+D800
  CHECK(RepairUtf8("\xED\xA0\x80") == kFFFD + kFFFD + kFFFD);
  CHECK_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // > U+10FFFF
  CHECK(RepairUtf8("\xF5") == kFFFD);
  CHECK(RepairUtf8("\xFF\xFE") == kFFFD + kFFFD);
  CHECK(RepairUtf8("\x80x") == kFFFD + "x");  // lone continuation
  CHECK(IsValidUtf8(RepairUtf8("\xC0\xE2\x82\xF4\x90\xBF\x80\x80")));
}

TEST_CASE("safe prefix never splits a valid sequence", "[utf8]") {
  std::string s =
      "ab\xE2\x82\xAC"
      "cd";  // a b € c d
  CHECK(Utf8SafePrefixLength(s, 2) == 2);
  CHECK(Utf8SafePrefixLength(s, 3) == 2);
  CHECK(Utf8SafePrefixLength(s, 4) == 2);
  CHECK(Utf8SafePrefixLength(s, 5) == 5);
  CHECK(Utf8SafePrefixLength(s, 100) == s.size());
  for (std::size_t n = 0; n <= s.size(); ++n) {
    CHECK(IsValidUtf8(s.substr(0, Utf8SafePrefixLength(s, n))));
  }
  // Ill-formed input may be cut anywhere.
  CHECK(Utf8SafePrefixLength("\x80\x80\x80\x80", 2) == 2);
}

}  // namespace seragen

TEST_CASE("echoed outside text is repaired and bounded", "[utf8]") {
  CHECK(seragen::ClipEcho("short", 10) == "short");
  CHECK(seragen::ClipEcho(std::string(1 << 20, 'a'), 8) == "aaaaaaaa...");
  // Never splits a character, never exceeds the bound after repair.
  CHECK(seragen::ClipEcho("ab\xc3\xa9"
                          "cdef",
                          3) == "ab...");
  std::string clipped = seragen::ClipEcho(std::string(100, '\xff'), 10);
  CHECK(clipped.size() <= 13);
  CHECK(seragen::IsValidUtf8(clipped));
}
