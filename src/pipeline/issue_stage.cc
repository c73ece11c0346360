#include "pipeline/issue_stage.h"

#include <deque>

#include "seragen/base/strings.h"
#include "seragen/base/utf8.h"

namespace seragen::pipeline {
namespace {

// Keeps the head and tail of long text; the cut is marked with "...".
std::string Clip(const std::string& text, std::size_t max_chars) {
  if (text.size() <= max_chars) return text;
  std::size_t head = Utf8SafePrefixLength(text, max_chars / 2);
  std::size_t tail_start = text.size() - max_chars / 2;
  while (tail_start < text.size() && (static_cast<unsigned char>(text[tail_start]) & 0xC0) == 0x80) ++tail_start;
  return text.substr(0, head) + "\n...\n" + text.substr(tail_start);
}

}  // namespace

Result<std::string> SummarizeTrajectory(const agent::Trajectory& t, const PromptLibrary& prompts,
                                        const SummaryLimits& limits) {
  std::deque<std::string> steps;
  std::size_t total = 0;
  int n = 0;
  // history: system, user, then (assistant, tool) pairs.
  for (std::size_t i = 2; i + 1 < t.history.size(); i += 2) {
    const llm::Message& a = t.history[i];
    const llm::Message& r = t.history[i + 1];
    if (a.role != llm::Role::kAssistant || a.tool_calls.empty()) continue;
    const llm::ToolCall& c = a.tool_calls.front();
    PromptLibrary::StepText text{Clip(std::string(TrimLineSpace(a.reasoning)), limits.max_text_chars),
                                 Clip(std::string(TrimLineSpace(a.content)), limits.max_text_chars),
                                 Clip(c.name + " " + c.arguments_json, limits.max_text_chars),
                                 Clip(std::string(TrimLineSpace(r.content)), limits.max_observation_chars)};
    SG_ASSIGN_OR_RETURN(std::string step, prompts.TrajectoryStep(++n, text));
    total += step.size();
    steps.push_back(std::move(step));
  }
  while (total > limits.max_total_chars && steps.size() > 1) {
    total -= steps.front().size();
    steps.pop_front();
  }
  std::string out;
  for (const auto& s : steps) out += s + "\n";
  return std::string(TrimLineSpace(out));
}

llm::ChatRequest ToolLessRequest(const llm::ChatRequest& base, std::string prompt, std::int64_t max_tokens,
                                 double temperature) {
  llm::ChatRequest req;
  req.model = base.model;
  req.seed = base.seed;
  req.extra_body_json = base.extra_body_json;
  req.sampling.temperature = temperature;
  req.max_tokens = max_tokens;
  req.messages.push_back({llm::Role::kUser, std::move(prompt), {}, {}, {}, {}});
  return req;
}

Result<std::string> ExtractTagged(const std::string& content, const std::string& tag) {
  std::string open = "<" + tag + ">", close = "</" + tag + ">";
  std::size_t o = content.rfind(open);
  if (o == std::string::npos) return ParseError("the reply has no <" + tag + "> tag");
  std::size_t c = content.find(close, o + open.size());
  std::string inner = c == std::string::npos ? content.substr(o + open.size())  // cut off: take the rest
                                             : content.substr(o + open.size(), c - o - open.size());
  if (c == std::string::npos) return ParseError("the reply opens <" + tag + "> but never closes it");
  inner = std::string(TrimLineSpace(inner));
  if (inner.empty()) return ParseError("the <" + tag + "> tag in the reply is empty");
  return inner;
}

journal::JudgeAnswer ParseJudgeReply(const std::string& content, const std::string& tag) {
  using journal::JudgeAnswer;
  Result<std::string> answer = ExtractTagged(content, tag);
  if (!answer.ok()) return JudgeAnswer::kUnparseable;
  // As SERA reads it: the trimmed answer, lower-cased, is exactly yes
  // ("Yes." is not).
  const std::string word = AsciiLower(*answer);
  for (JudgeAnswer a : {JudgeAnswer::kYes, JudgeAnswer::kNo}) {
    if (word == journal::JudgeAnswerName(a)) return a;
  }
  return JudgeAnswer::kUnparseable;
}

}  // namespace seragen::pipeline
