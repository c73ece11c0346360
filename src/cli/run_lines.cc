#include "cli/run_lines.h"

#include <fmt/format.h>

#include <algorithm>

#include "seragen/runview/status_breakdown.h"

namespace seragen::cli {

using pipeline::RunSummary;
using pipeline::TallyOf;
using runview::TaskTally;

std::string ProgressLine(const RunSummary& s, double elapsed_s) {
  std::size_t done = 0;
  for (const auto& [k, n] : s.outcomes) done += n;
  std::string line = fmt::format("{}/{} tasks done ({} before), {} running, {} accepted", TallyOf(s).done, s.planned,
                                 s.already_finished, s.in_flight, s.accepted + s.accepted_before);
  for (const auto& [k, n] : s.outcomes) line += fmt::format(", {} {}", n, pipeline::TaskOutcomeKindName(k));
  line += fmt::format(", {} tokens in / {} out", s.prompt_tokens, s.completion_tokens);
  if (elapsed_s > 1 && done > 0) {
    double rate = 60.0 * static_cast<double>(done) / elapsed_s;
    std::size_t left = s.planned - std::min(s.planned, done + s.already_finished);
    line += fmt::format(", {:.1f} tasks/min", rate);
    if (left > 0) line += ", " + runview::FormatEta(runview::EtaMinutes(left, rate));
  }
  return line;
}

std::string FinalLine(const RunSummary& s, double elapsed_s) {
  const TaskTally tally = TallyOf(s);
  std::size_t finished_now = 0;
  std::string kinds;
  for (const auto& [k, n] : s.outcomes) {
    finished_now += n;
    kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, pipeline::TaskOutcomeKindName(k));
  }
  std::string line = fmt::format("{}/{} tasks done, {} accepted; this invocation: {} finished", tally.done, s.planned,
                                 s.accepted + s.accepted_before, finished_now);
  if (!kinds.empty()) line += " (" + kinds + ")";
  line += fmt::format(", {} accepted, {} tokens in / {} out", s.accepted, s.prompt_tokens, s.completion_tokens);
  if (elapsed_s > 1 && finished_now > 0) {
    line += fmt::format(", {:.1f} tasks/min", 60.0 * static_cast<double>(finished_now) / elapsed_s);
  }
  return line;
}

}  // namespace seragen::cli
