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
#include "seragen/base/terminal_text.h"
#include "seragen/report/run_view.h"
#include "seragen/report/task_detail.h"

namespace seragen::report {

struct ShowOptions {
  int rollout = 1;  // 1 or 2
  bool color = false;
  std::size_t max_text_bytes = 4000;  // per reasoning / content / observation
};

// Terminal-safe text (base/terminal_text.h), under the names this module used first.
using seragen::TerminalField;
using seragen::TerminalSafe;

// Header (task, function, category, outcome, scores) and the chosen rollout
// step by step, then its patch; the issue before rollout 2.
std::string FormatShow(const TaskRow& row, const TaskDetail& detail, const ShowOptions& options);

}  // namespace seragen::report
