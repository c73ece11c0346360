// The tokens of model answers as the journal records them: each answer is
// one call, counted in the sum and in the part of the endpoint that gave it
// (llm::ChatResponse::endpoint), so the cost ledger can price each
// endpoint's tokens with its own price (journal::JournalRecord::endpoint_tokens).
#pragma once

#include <vector>

#include "seragen/agent/trajectory.h"
#include "seragen/agent/turn_replay.h"
#include "seragen/journal/record.h"
#include "seragen/llm/types.h"

namespace seragen::pipeline {

struct AnswerTokens {
  journal::TokenUsage total;
  journal::EndpointTokens by_endpoint;

  void Add(const llm::ChatResponse& answer);  // one call
  // Puts both on `record` (its tokens and endpoint_tokens).
  void Record(journal::JournalRecord& record) const;
};

// A rollout's: the trajectory's totals (every model call, answered or not;
// no reasoning tokens) and each endpoint's part of its answered turns
// (replayed ones included).
AnswerTokens TokensOf(const agent::Trajectory& trajectory);

// The answers of recorded turns (a turn log's).
AnswerTokens TokensOf(const std::vector<agent::RecordedTurn>& turns);

// `a` less `b`, every count (each endpoint's too) at least 0.
AnswerTokens Minus(AnswerTokens a, const AnswerTokens& b);

}  // namespace seragen::pipeline
