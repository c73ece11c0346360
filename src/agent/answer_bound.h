// One model answer bounded where it arrives (internal to src/agent): a
// server or model can send megabytes of content, reasoning or tool-call
// arguments in one answer, and what is stored, journaled and sent back must
// not carry them.
#pragma once

#include <cstdint>

#include "seragen/llm/types.h"

namespace seragen::agent {

// Bytes of each text an oversized answer keeps (enough for the model and a
// reader of the trajectory to see what it was).
inline constexpr std::size_t kKeptAnswerBytes = 2000;
// Tool calls one answer may hold; an answer with more is oversized too (and
// keeps this many).
inline constexpr std::size_t kMaxAnswerCalls = 64;

// When the answer's text (content + reasoning + every call's raw arguments)
// passes `max_bytes`, or it holds more than kMaxAnswerCalls calls, cuts each of those texts and the wire body to
// kKeptAnswerBytes (at a UTF-8 boundary), drops the parsed arguments and
// marks the answer: tool_issue kTooLarge, the original size in
// tool_issue_detail. Returns true when it cut. max_bytes <= 0: no cap.
bool BoundAnswer(llm::ChatResponse& answer, std::int64_t max_bytes);

}  // namespace seragen::agent
