// `seragen show`: one task's trajectory as text for a terminal. Colored with
// ANSI escapes only when asked (the CLI asks when stdout is a TTY). Every
// byte from the run is hostile: invalid UTF-8 is repaired and control
// characters (ESC included) are shown as \xNN, so a trajectory cannot drive
// the terminal.
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

// Text safe to print: repaired UTF-8, C0 controls but \n and \t and DEL as
// "\xNN", at most max_bytes (then "… [N more bytes]").
std::string TerminalSafe(std::string_view text, std::size_t max_bytes);

// Header (task, function, category, outcome, scores) and the chosen rollout
// step by step, then its patch; the issue before rollout 2.
std::string FormatShow(const TaskRow& row, const TaskDetail& detail, const ShowOptions& options);

}  // namespace seragen::report
