#include "report/task_page.h"

#include <fmt/format.h>

#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "report/html.h"
#include "seragen/agent/exit_status.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/strings.h"
#include "seragen/llm/types.h"
#include "seragen/verify/sera_lines.h"

namespace seragen::report {
namespace {

constexpr std::size_t kMaxTurns = 400;              // turns rendered per rollout
constexpr std::size_t kMaxPatchBytes = 512 * 1024;  // diff bytes rendered
constexpr std::size_t kMaxMarkedLines = 2000;
constexpr std::size_t kMaxNameBytes = 300;
constexpr std::size_t kPageBytesHint = 32 * 1024;  // most pages fit without growing

std::string E(std::string_view s) { return Escape(Clip(s, kMaxNameBytes)); }

std::string Kv(std::string_view key, const std::string& value_html) {
  return fmt::format("<tr><td>{}</td><td>{}</td></tr>", key, value_html);
}

std::string OutcomeSpan(const TaskRow& row) {
  return fmt::format("<span class=\"o-{}\">{}</span>", UrlComponent(row.OutcomeName()), E(row.OutcomeName()));
}

std::string SummaryTable(const RunView& view, const TaskRow& row) {
  std::string t = "<table class=\"kv\">";
  t += Kv("task", "<code>" + E(row.task_id) + "</code>");
  t += Kv("outcome", OutcomeSpan(row) + (row.detail.empty() ? "" : " · " + E(row.detail)));
  if (!row.error_message.empty()) t += Kv("error", "<span class=\"bad\">" + Escape(row.error_message) + "</span>");
  t += Kv("latest stage", E(row.stage ? row.StageName() : "not started"));
  t += Kv("repository", E(row.repo) + " @ <code>" + E(row.commit.substr(0, 12)) + "</code>");
  t += Kv("category", E(row.category_name) + row.CategoryNote());
  t += Kv("shard", fmt::format("{}", row.shard));
  t += Kv("rollout-1 attempts", fmt::format("{} ({} rejected by the judge)", row.attempts, row.judge_rejections));
  t += Kv("tokens", fmt::format("{} prompt ({} cached), {} completion, {} model calls",
                                Thousands(row.tokens.prompt_tokens), Thousands(row.tokens.cached_prompt_tokens),
                                Thousands(row.tokens.completion_tokens), Thousands(row.tokens.calls)));
  t += Kv("stage time", fmt::format("{:.1f} s", static_cast<double>(row.wall_ms) / 1000.0));
  if (!view.recipe_hash.empty()) t += Kv("recipe hash", "<code>" + E(view.recipe_hash) + "</code>");
  return t + "</table>";
}

std::string NeighbourList(const std::vector<Neighbour>& list) {
  if (list.empty()) return "<p class=\"note\">none</p>";
  std::string out = "<ul>";
  for (const Neighbour& n : list) {
    out += fmt::format("<li><code>{}</code> <span class=\"note\">({}, line {})</span></li>", E(n.function_id),
                       E(n.resolution), n.line);
  }
  return out + "</ul>";
}

std::string FunctionSection(const TaskRow& row, const TaskDetail& d) {
  std::string out = "<h2 id=\"function\">Start function</h2>";
  out += fmt::format("<p><code>{}</code> · {} lines {}–{} · {}</p>", E(row.function_id), E(row.file), row.start_line,
                     row.end_line, E(row.language));
  if (!d.graph_found) return out + "<p class=\"note\">no cached call graph holds this function</p>";
  out += fmt::format("<h3>Called by ({})</h3>", d.callers.size()) + NeighbourList(d.callers);
  out += fmt::format("<h3>Calls ({})</h3>", d.callees.size()) + NeighbourList(d.callees);
  return out;
}

void AppendLabeled(std::string& out, std::string_view label, std::string_view text, std::string_view css) {
  if (text.empty()) return;
  out.append("<div class=\"lbl\">").append(label).append("</div>");
  AppendClippedPre(out, text, css);
}

// What a tool call does, for its collapsed step: the "command" argument (a
// shell command, or an editor command) and "path", first line, clipped.
std::string CallPreview(const llm::ToolCall& call) {
  if (!call.arguments_valid || !CheckJsonDepth(call.arguments_json, "tool call arguments").ok()) return "";
  nlohmann::json args = nlohmann::json::parse(call.arguments_json, nullptr, /*allow_exceptions=*/false);
  if (!args.is_object()) return "";
  std::string text;
  for (const char* key : {"command", "path"}) {
    auto it = args.find(key);
    if (it != args.end() && it->is_string()) text += (text.empty() ? "" : " ") + it->get<std::string>();
  }
  std::string first = text.substr(0, text.find('\n'));
  return Clip(first, 120) + (first.size() < text.size() ? " …" : "");
}

void AppendTurn(std::string& out, const agent::TurnRecord& turn, std::size_t index) {
  out += "<details class=\"step\"><summary>";
  fmt::format_to(std::back_inserter(out), "call {} · step {}", index + 1, turn.step + (turn.accepted ? 1 : 0));
  for (const auto& call : turn.response.tool_calls) {
    out.append(" · ").append(E(call.name));
    if (std::string preview = CallPreview(call); !preview.empty())
      out.append(" <code>").append(E(preview)) += "</code>";
  }
  if (!turn.format_error.empty())
    out.append(" · <span class=\"bad\">format error: ").append(E(turn.format_error)) += "</span>";
  if (!turn.failure.empty()) out += " · <span class=\"bad\">call failed</span>";
  if (turn.command_timed_out) out += " · <span class=\"bad\">command timed out</span>";
  out += "</summary>";
  if (!turn.failure.empty()) AppendLabeled(out, "model call failed (" + E(turn.failure_class) + ")", turn.failure, "");
  AppendLabeled(out, "reasoning", turn.response.reasoning, "");
  AppendLabeled(out, "content", turn.response.content, "");
  for (const auto& call : turn.response.tool_calls) {
    AppendLabeled(out, "tool call: " + E(call.name), call.arguments_valid ? call.arguments_json : call.arguments_raw,
                  "");
    if (!call.arguments_error.empty()) AppendLabeled(out, "argument error", call.arguments_error, "");
  }
  if (!turn.format_error.empty()) AppendLabeled(out, "told the model", turn.format_error_message, "");
  AppendLabeled(out, "observation", turn.observation, "");
  out += "</details>";
}

void AppendRollout(std::string& out, const std::optional<agent::Trajectory>& traj, const std::string& error) {
  if (!traj) {
    out += fmt::format("<p class=\"note\">{}</p>", error.empty() ? "no trajectory (yet)" : "not readable: " + E(error));
    return;
  }
  const agent::Trajectory& t = *traj;
  fmt::format_to(std::back_inserter(out),
                 "<p>exit <b>{}</b> · {} steps · {} model calls · {} format errors · {} tokens · {:.1f} s · model "
                 "<code>{}</code></p>",
                 agent::OutcomeName(t.exit_status, t.autosubmitted), t.totals.steps, t.totals.model_calls,
                 t.totals.format_errors, Thousands(t.totals.prompt_tokens + t.totals.completion_tokens),
                 t.totals.wall_seconds, E(t.model));
  if (!t.exit_detail.empty() && t.exit_detail != agent::ExitStatusName(t.exit_status)) {
    AppendLabeled(out, "exit detail", t.exit_detail, "");
  }
  for (std::size_t i = 0; i < t.history.size() && i < 2; ++i) {
    const llm::Message& m = t.history[i];
    out.append("<details class=\"step\"><summary>").append(llm::RoleName(m.role)).append(" prompt</summary>");
    AppendClippedPre(out, m.content, "");
    out += "</details>";
  }
  for (std::size_t i = 0; i < t.turns.size() && i < kMaxTurns; ++i) AppendTurn(out, t.turns[i], i);
  if (t.turns.size() > kMaxTurns) {
    out += fmt::format("<p class=\"note\">{} more model calls not shown</p>", t.turns.size() - kMaxTurns);
  }
}

std::string RolloutHtml(const std::optional<agent::Trajectory>& traj, const std::string& error) {
  std::string out;
  AppendRollout(out, traj, error);
  return out;
}

std::string PatchSection(std::string_view id, std::string_view title, const std::optional<agent::Trajectory>& t) {
  std::string out = fmt::format("<h2 id=\"{}\">{}</h2>", id, title);
  if (!t) return out + "<p class=\"note\">no rollout</p>";
  if (!t->has_patch)
    return out +
           fmt::format("<p class=\"note\">no patch{}</p>", t->patch_error.empty() ? "" : ": " + E(t->patch_error));
  return out + DiffHtml(t->patch);
}

std::string IssueSection(const TaskRow& row, const TaskDetail& d) {
  std::string out = "<h2 id=\"issue\">Synthetic issue</h2>";
  if (!d.issue) return out + "<p class=\"note\">no issue written (yet)</p>";
  out += ClippedPre(*d.issue, "issue", {8000, 64 * 1024});
  if (!row.demo_issue.empty()) {
    out += fmt::format("<p class=\"note\">demonstration shown to the issue writer: <code>{}</code>{}</p>",
                       E(row.demo_issue), row.demo_source.empty() ? "" : " (source: " + E(row.demo_source) + ")");
  }
  if (d.demo_issue) {
    out += "<details><summary>the demonstration</summary>" + ClippedPre(*d.demo_issue, "issue", {8000, 64 * 1024}) +
           "</details>";
  }
  return out;
}

std::string VerificationSection(const TaskRow& row, const TaskDetail& d) {
  std::string out = "<h2 id=\"verification\">Soft verification</h2>";
  if (row.scores) {
    const auto& s = *row.scores;
    out += fmt::format(
        "<p>rule <b>{}</b> · recall <b>{:.3f}</b> ({} of {} P1 lines) · precision <b>{:.3f}</b> ({} P2 lines) · F1 "
        "{:.3f}{}</p>",
        E(s.rule.empty() ? "structural" : s.rule), s.recall, s.matched, s.p1_lines, s.precision, s.p2_lines, s.f1,
        row.threshold ? fmt::format(" · threshold {}", *row.threshold) : "");
  } else {
    out += "<p class=\"note\">not verified (yet)</p>";
  }
  if (!d.r1 || !d.r1->has_patch) return out;
  std::vector<MarkedLine> marked = MarkChangedLines(d.r1->patch, d.r2 && d.r2->has_patch ? d.r2->patch : "");
  out += "<p class=\"note\">P1's changed lines, marked by whether P2 has them (SERA's line rule, sign kept)</p>";
  out += "<pre class=\"diff marked\">";
  for (std::size_t i = 0; i < marked.size() && i < kMaxMarkedLines; ++i) {
    out += marked[i].matched ? "<span class=\"m\">✓ " : "<span class=\"u\">✗ ";
    AppendEscaped(out, Clip(marked[i].line, 2000));
    out += "</span>";
  }
  out += "</pre>";
  if (marked.size() > kMaxMarkedLines)
    out += fmt::format("<p class=\"note\">{} more lines</p>", marked.size() - kMaxMarkedLines);
  return out;
}

}  // namespace

std::vector<MarkedLine> MarkChangedLines(std::string_view p1, std::string_view p2) {
  verify::ChangedLines p2_lines = verify::ParseSeraLines(p2);
  std::map<std::string, std::size_t, std::less<>> left(p2_lines.counts().begin(), p2_lines.counts().end());
  std::vector<MarkedLine> out;
  std::size_t start = 0;
  while (start < p1.size()) {
    std::size_t end = p1.find('\n', start);
    if (end == std::string_view::npos) end = p1.size();
    // The rule on one line at a time keeps P1's order; a line counts when the rule counts it.
    verify::ChangedLines one = verify::ParseSeraLines(p1.substr(start, end - start));
    for (const auto& [line, n] : one.counts()) {
      for (std::size_t k = 0; k < n; ++k) {
        auto it = left.find(line);
        bool matched = it != left.end() && it->second > 0;
        if (matched) it->second--;
        out.push_back({line, matched});
      }
    }
    start = end + 1;
  }
  return out;
}

std::string DiffHtml(std::string_view patch) {
  std::size_t keep = patch.size() > kMaxPatchBytes ? kMaxPatchBytes : patch.size();
  std::string out = "<pre class=\"diff\">";
  std::size_t start = 0;
  while (start < keep) {
    std::size_t end = patch.find('\n', start);
    if (end == std::string_view::npos || end > keep) end = keep;
    std::string_view line = patch.substr(start, end - start);
    const char* cls = line.starts_with("diff ") || line.starts_with("+++") || line.starts_with("---") ? "f"
                      : line.starts_with("@@")                                                        ? "h"
                      : line.starts_with("+")                                                         ? "a"
                      : line.starts_with("-")                                                         ? "d"
                                                                                                      : "c";
    out.append("<span class=\"").append(cls).append("\">");
    if (line.empty()) {
      out += ' ';
    } else {
      AppendEscaped(out, line);
    }
    out += "</span>";
    start = end + 1;
  }
  out += "</pre>";
  if (keep < patch.size()) {
    out += fmt::format("<p class=\"note\">{} more bytes of the patch not shown</p>",
                       Thousands(static_cast<long long>(patch.size() - keep)));
  }
  return out;
}

std::string RenderTaskPage(const RunView& view, const TaskRow& row, const TaskDetail& d, std::string_view index_href) {
  std::string out;
  out.reserve(kPageBytesHint);
  out += PageHead("seragen · " + Clip(row.qualname.empty() ? row.task_id : row.qualname, 120));
  out += fmt::format(
      "<nav><a href=\"{}\">← run report</a> · <a href=\"#function\">function</a> · <a "
      "href=\"#rollout1\">rollout 1</a> · <a href=\"#p1\">P1</a> · <a href=\"#issue\">issue</a> · <a "
      "href=\"#rollout2\">rollout 2</a> · <a href=\"#p2\">P2</a> · <a "
      "href=\"#verification\">verification</a></nav>",
      Escape(index_href));
  out += fmt::format("<h1>{} {}</h1>", E(row.qualname.empty() ? row.task_id : row.qualname), OutcomeSpan(row));
  out += SummaryTable(view, row);
  out += FunctionSection(row, d);
  out += "<h2 id=\"rollout1\">Rollout 1</h2>";
  AppendRollout(out, d.r1, d.r1_error);
  for (const RejectedAttempt& a : d.rejected) {
    out += fmt::format(
        "<details class=\"step\"><summary>rollout-1 attempt {} (rejected by the judge)</summary>{}{}</details>",
        a.attempt, RolloutHtml(a.trajectory, a.load_error),
        a.trajectory && a.trajectory->has_patch ? DiffHtml(a.trajectory->patch) : "");
  }
  out += PatchSection("p1", "P1 (rollout 1's patch)", d.r1);
  out += IssueSection(row, d);
  out += "<h2 id=\"rollout2\">Rollout 2</h2>";
  AppendRollout(out, d.r2, d.r2_error);
  out += PatchSection("p2", "P2 (rollout 2's patch)", d.r2);
  out += VerificationSection(row, d);
  return out + PageTail();
}

}  // namespace seragen::report
