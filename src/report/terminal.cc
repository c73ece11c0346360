#include "seragen/report/terminal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "seragen/agent/exit_status.h"
#include "seragen/base/utf8.h"

namespace seragen::report {
namespace {

constexpr std::size_t kMaxPatchBytes = 200 * 1024;
constexpr std::size_t kMaxIssueBytes = 20 * 1024;

struct Style {
  bool on = false;
  std::string operator()(std::string_view code, std::string_view text) const {
    if (!on) return std::string(text);
    return fmt::format("\x1b[{}m{}\x1b[0m", code, text);
  }
};

constexpr std::string_view kBold = "1", kDim = "2", kRed = "31", kGreen = "32", kYellow = "33", kBlue = "34",
                           kCyan = "36";

// A one-line field.
std::string Line(std::string_view text, std::size_t max_bytes) {
  return TerminalSafe(text, max_bytes, TerminalField::kLine);
}

std::string Scores(const TaskRow& row) {
  if (!row.scores) return "";
  const auto& s = *row.scores;
  return fmt::format("recall {:.3f} ({} of {} P1 lines), precision {:.3f}{}", s.recall, s.matched, s.p1_lines,
                     s.precision, row.threshold ? fmt::format(", threshold {}", *row.threshold) : "");
}

void AppendHeader(const TaskRow& row, const Style& st, std::string& out) {
  auto safe = [](std::string_view s) { return Line(s, 400); };
  out += st(kBold, "task " + safe(row.task_id)) + "\n";
  out += fmt::format("function   {} ({}:{}-{}, {})\n", safe(row.function_id), safe(row.file), row.start_line,
                     row.end_line, safe(row.repo));
  out += "category   " + safe(row.category_name) + row.CategoryNote() + "\n";
  std::string outcome = safe(row.OutcomeName()) + (row.detail.empty() ? "" : " (" + safe(row.detail) + ")");
  std::string_view color = row.outcome == journal::Outcome::kAccepted ? kGreen
                           : row.outcome == journal::Outcome::kFailed ? kRed
                                                                      : kYellow;
  out += "outcome    " + st(color, outcome) + "\n";
  if (!row.error_message.empty()) out += "error      " + safe(row.error_message) + "\n";
  if (row.scores) out += "scores     " + Scores(row) + "\n";
  out += fmt::format("tokens     {} in, {} out, {} model calls\n", row.tokens.prompt_tokens,
                     row.tokens.completion_tokens, row.tokens.calls);
}

void AppendBlock(std::string_view label, std::string_view text, std::string_view color, const Style& st,
                 std::size_t max, std::string& out) {
  if (text.empty()) return;
  out += st(color, std::string(label) + ":") + "\n";
  std::string body = TerminalSafe(text, max);
  out += body;
  if (body.empty() || body.back() != '\n') out += "\n";
}

void AppendTurn(const agent::TurnRecord& turn, std::size_t index, const Style& st, const ShowOptions& o,
                std::string& out) {
  std::string title = fmt::format("── call {} · step {}", index + 1, turn.step + (turn.accepted ? 1 : 0));
  if (!turn.accepted) title += turn.failure.empty() ? " · not accepted" : " · failed";
  out += "\n" + st(kBold, title) + "\n";
  if (!turn.failure.empty()) AppendBlock("model call failed", turn.failure, kRed, st, o.max_text_bytes, out);
  AppendBlock("reasoning", turn.response.reasoning, kDim, st, o.max_text_bytes, out);
  AppendBlock("content", turn.response.content, kCyan, st, o.max_text_bytes, out);
  for (const auto& call : turn.response.tool_calls) {
    out += st(kBlue, "tool call " + Line(call.name, 200)) + "\n";
    out += TerminalSafe(call.arguments_valid ? call.arguments_json : call.arguments_raw, o.max_text_bytes) + "\n";
  }
  if (!turn.format_error.empty()) {
    AppendBlock("format error " + Line(turn.format_error, 100), turn.format_error_message, kRed, st, o.max_text_bytes,
                out);
  }
  AppendBlock(turn.command_timed_out ? "observation (command timed out)" : "observation", turn.observation, kDim, st,
              o.max_text_bytes, out);
}

void AppendPatch(std::string_view patch, const Style& st, std::string& out) {
  std::string text = TerminalSafe(patch, kMaxPatchBytes);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    std::string_view color = line.starts_with("+++") || line.starts_with("---") || line.starts_with("diff ") ? kBold
                             : line.starts_with("@@")                                                        ? kCyan
                             : line.starts_with("+")                                                         ? kGreen
                             : line.starts_with("-")                                                         ? kRed
                                                                                                             : "";
    out += (color.empty() ? std::string(line) : st(color, line)) + "\n";
    start = end + 1;
  }
}

}  // namespace

std::string FormatShow(const TaskRow& row, const TaskDetail& detail, const ShowOptions& o) {
  Style st{o.color};
  std::string out;
  AppendHeader(row, st, out);
  const auto& traj = o.rollout == 2 ? detail.r2 : detail.r1;
  const std::string& error = o.rollout == 2 ? detail.r2_error : detail.r1_error;
  if (o.rollout == 2 && detail.issue) {
    out += "\n" + st(kBold, "synthetic issue") + "\n" + TerminalSafe(*detail.issue, kMaxIssueBytes) + "\n";
  }
  if (!traj) {
    out += fmt::format("\nrollout {}: {}\n", o.rollout, error.empty() ? "no trajectory (yet)" : Line(error, 400));
    return out;
  }
  const agent::Trajectory& t = *traj;
  out += "\n" + st(kBold, fmt::format("rollout {}", o.rollout)) +
         fmt::format(": {} · {} steps · {} model calls · {} format errors · {} tokens · {:.1f}s · model {}\n",
                     agent::OutcomeName(t.exit_status, t.autosubmitted), t.totals.steps, t.totals.model_calls,
                     t.totals.format_errors, t.totals.prompt_tokens + t.totals.completion_tokens, t.totals.wall_seconds,
                     Line(t.model, 200));
  if (!t.exit_detail.empty() && t.exit_detail != agent::ExitStatusName(t.exit_status))
    out += "exit detail: " + Line(t.exit_detail, 2000) + "\n";
  for (std::size_t i = 0; i < t.turns.size(); ++i) AppendTurn(t.turns[i], i, st, o, out);
  out += "\n" + st(kBold, fmt::format("P{}", o.rollout)) + "\n";
  if (t.has_patch) {
    AppendPatch(t.patch, st, out);
  } else {
    out += t.patch_error.empty() ? "(no patch)\n" : "(no patch: " + Line(t.patch_error, 400) + ")\n";
  }
  return out;
}

}  // namespace seragen::report
