// A status line kept at the bottom of stderr (a terminal), for a live
// progress display: every log line (log.h) written while one is shown
// clears it first and draws it again after, so log lines never run into it.
// Thread-safe (the log's own lock).
#pragma once

#include <string_view>

namespace seragen::log {

// Shows `line` as the status line (replacing the previous one); an empty
// `line` removes it and clears the terminal line.
void SetStatusLine(std::string_view line);

}  // namespace seragen::log
