#include "seragen/pipeline/answer_tokens.h"

#include <algorithm>

namespace seragen::pipeline {
namespace {

journal::TokenUsage Less(journal::TokenUsage a, const journal::TokenUsage& b) {
  a.prompt_tokens = std::max<std::int64_t>(0, a.prompt_tokens - b.prompt_tokens);
  a.completion_tokens = std::max<std::int64_t>(0, a.completion_tokens - b.completion_tokens);
  a.reasoning_tokens = std::max<std::int64_t>(0, a.reasoning_tokens - b.reasoning_tokens);
  a.cached_prompt_tokens = std::max<std::int64_t>(0, a.cached_prompt_tokens - b.cached_prompt_tokens);
  a.calls = std::max<std::int64_t>(0, a.calls - b.calls);
  return a;
}

}  // namespace

void AnswerTokens::Add(const llm::ChatResponse& answer) {
  journal::TokenUsage one;
  one.prompt_tokens = answer.usage.prompt_tokens;
  one.completion_tokens = answer.usage.completion_tokens;
  one.reasoning_tokens = answer.usage.reasoning_tokens.value_or(0);
  one.cached_prompt_tokens = answer.usage.cached_prompt_tokens.value_or(0);
  one.calls = 1;
  total += one;
  by_endpoint[answer.endpoint] += one;
}

void AnswerTokens::Record(journal::JournalRecord& record) const {
  record.tokens = total;
  record.endpoint_tokens = by_endpoint;
}

AnswerTokens TokensOf(const agent::Trajectory& t) {
  AnswerTokens out;
  for (const agent::TurnRecord& turn : t.turns) {
    if (turn.failure.empty()) out.Add(turn.response);
  }
  for (auto& [endpoint, usage] : out.by_endpoint) usage.reasoning_tokens = 0;  // the totals do not count them
  out.total = journal::TokenUsage{};
  out.total.prompt_tokens = t.totals.prompt_tokens;
  out.total.completion_tokens = t.totals.completion_tokens;
  out.total.cached_prompt_tokens = t.totals.cached_prompt_tokens;
  out.total.calls = t.totals.model_calls;
  return out;
}

AnswerTokens TokensOf(const std::vector<agent::RecordedTurn>& turns) {
  AnswerTokens out;
  for (const agent::RecordedTurn& t : turns) out.Add(t.response);
  return out;
}

AnswerTokens Minus(AnswerTokens a, const AnswerTokens& b) {
  a.total = Less(a.total, b.total);
  for (const auto& [endpoint, usage] : b.by_endpoint) {
    auto it = a.by_endpoint.find(endpoint);
    if (it != a.by_endpoint.end()) it->second = Less(it->second, usage);
  }
  std::erase_if(a.by_endpoint, [](const auto& e) { return e.second == journal::TokenUsage{}; });
  return a;
}

}  // namespace seragen::pipeline
