#include "seragen/base/terminal_text.h"

#include <catch2/catch.hpp>

namespace seragen {

TEST_CASE("terminal text: escapes, OSC, CSI, bidi controls and newlines of a one-line message", "[terminal_text]") {
  const std::string hostile =
      "model \x1b]0;owned\x07 \xC2\x9B"
      "2J \xE2\x80\xAE"
      "txt.exe\nforged line";
  const std::string safe = TerminalLine(hostile);
  for (const char* raw : {"\x1b", "\x07", "\xC2\x9B", "\xE2\x80\xAE", "\n"}) CHECK(safe.find(raw) == std::string::npos);
  CHECK(safe.find("forged line") != std::string::npos);
  CHECK(TerminalSafe("two\nlines\t", 100) == "two\nlines\t");
}

}  // namespace seragen
