// `seragen show`: one task's trajectory as text for a terminal. Colored with
// ANSI escapes only when asked (the CLI asks when stdout is a TTY). Every
// byte from the run is hostile: every string printed goes through
// TerminalSafe, so a trajectory can neither drive the terminal nor reorder
// or fake the lines around it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "seragen/agent/trajectory.h"
#include "seragen/report/run_view.h"
#include "seragen/report/task_detail.h"

namespace seragen::report {

struct ShowOptions {
  int rollout = 1;  // 1 or 2
  bool color = false;
  std::size_t max_text_bytes = 4000;  // per reasoning / content / observation
};

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

// Header (task, function, category, outcome, scores) and the chosen rollout
// step by step, then its patch; the issue before rollout 2.
std::string FormatShow(const TaskRow& row, const TaskDetail& detail, const ShowOptions& options);

}  // namespace seragen::report
