// Knobs of the agent's tools (sizes, limits, the submit review step).
#pragma once

#include <cstddef>
#include <cstdint>

#include "seragen/sandbox/sandbox_options.h"

namespace seragen::tools {

struct ToolOptions {
  // Limits of one bash command (timeout, output cap, rlimits).
  sandbox::RunLimits bash_limits;
  // After this many consecutive timed-out commands the bash tool refuses
  // further commands and reports stop_requested (0 = no cap).
  int max_consecutive_timeouts = 3;
  // Characters of file content one `view` shows before clipping.
  std::size_t view_max_chars = 20000;
  // Lines of file content one `view` shows before clipping (tools.view_max_lines).
  std::size_t view_max_lines = 400;
  // Entries one directory view lists before clipping.
  std::size_t directory_max_entries = 400;
  // Lines of context around an edit in the snippet shown after it.
  int snippet_context_lines = 4;
  // Files larger than this are not loaded by the editor.
  std::size_t max_file_bytes = 4 * 1024 * 1024;
  // Edits remembered per file for undo_edit.
  std::size_t undo_depth = 32;
  // Bytes of previous contents kept for undo_edit across all files; past it
  // the oldest remembered edits are forgotten (one file alone may exceed it
  // by its last edit). Without it, 32 edits of many 4 MiB files add up.
  std::size_t undo_max_bytes = 64 * 1024 * 1024;
  // The first submit shows the diff for review; the next one submits.
  bool submit_review = true;
  // Disk the working copy may use (sandbox.max_copy_mb), measured after each
  // bash command and editor change; over it the rollout ends. 0 = unchecked.
  std::uint64_t max_copy_bytes = 0;
  // Entries (files, directories, links) the copy may hold; over it counts as
  // over the disk limit (bounds the cost of measuring).
  std::uint64_t max_copy_entries = 1000000;
  // Characters of the diff shown in the review (cut at a line, with a note),
  // so a huge accidental change cannot overflow the context.
  std::size_t submit_review_max_chars = 40000;
};

}  // namespace seragen::tools
