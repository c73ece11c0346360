// Text from outside (a model, an endpoint, an image, a run directory) made
// safe to print on a terminal: no byte of it can move the cursor, change
// colours, set the window title, or reorder what is shown.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace seragen {

enum class TerminalField {
  kBlock,  // text of several lines: \n and \t stay
  kLine,   // a one-line field: \n and \t are escaped too
  kJson,   // JSON text (`show --raw`): like kBlock, escapes written as JSON's \uXXXX, valid inside its strings
};

// Text safe to print: UTF-8 repaired; C0 controls (but \n and \t outside
// kLine), DEL and the C1 controls U+0080-U+009F (CSI, OSC, ST, ...) shown as
// "\xNN" (ASCII) or "\u{XXXX}"; so are the bidirectional controls
// (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) that would reorder
// what is shown. At most max_bytes of `text` (then "… [N more bytes]").
std::string TerminalSafe(std::string_view text, std::size_t max_bytes, TerminalField field = TerminalField::kBlock);

// TerminalSafe for a message of any length in one line (errors and log lines
// from outside text): 64 KiB at most.
inline std::string TerminalLine(std::string_view text) { return TerminalSafe(text, 64 * 1024, TerminalField::kLine); }

}  // namespace seragen
