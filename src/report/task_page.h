// One task's page of the report: the start function and its call-graph
// neighbours, rollout 1 step by step, P1 as a colored diff, the synthetic
// issue and its demonstration, rollout 2, P2, and P1's changed lines marked
// matched or unmatched in P2 with the recorded recall and precision. Plain
// HTML with <details> expanders: no script, everything escaped and clipped
// (html.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "seragen/report/run_view.h"
#include "seragen/report/task_detail.h"

namespace seragen::report {

// A changed line of P1 and whether P2 has it (multiset, sign kept, in P1's
// order: the k-th copy of a line matches when P2 has at least k copies).
struct MarkedLine {
  std::string line;  // '+' or '-' then the text
  bool matched = false;
};

// P1's changed lines under SERA's line rule (verify/sera_lines.h), marked
// against P2's; the counts agree with that rule's `matched`.
std::vector<MarkedLine> MarkChangedLines(std::string_view p1, std::string_view p2);

// A unified diff as <pre class="diff"> with one span per line (added,
// removed, hunk header, file header), clipped.
std::string DiffHtml(std::string_view patch);

// The whole page; `index_href` links back to the index.
std::string RenderTaskPage(const RunView& view, const TaskRow& row, const TaskDetail& detail,
                           std::string_view index_href = "../index.html");

}  // namespace seragen::report
