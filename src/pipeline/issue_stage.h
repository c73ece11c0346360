// The tool-less stages between the rollouts: the synthetic issue and the
// optional judge (docs/DESIGN.md §1.3, §1.4). Pure functions over typed data.
#pragma once

#include <string>

#include "seragen/agent/trajectory.h"
#include "seragen/base/result.h"
#include "seragen/journal/outcomes.h"
#include "seragen/llm/types.h"
#include "seragen/pipeline/prompt_library.h"

namespace seragen::pipeline {

struct SummaryLimits {
  std::size_t max_observation_chars = 1200;  // per step, cut in the middle
  std::size_t max_text_chars = 2000;         // the step's reasoning, its text and its tool call, each
  std::size_t max_total_chars = 24000;       // whole summary; oldest steps dropped first
};

// Rollout-1 steps for the judge and the issue writer: each accepted turn's
// reasoning, its text and its tool call (each clipped to max_text_chars) and
// a clipped observation, rendered with prompts' trajectory_step.md.
Result<std::string> SummarizeTrajectory(const agent::Trajectory& trajectory, const PromptLibrary& prompts,
                                        const SummaryLimits& limits = {});

// A single-message, tool-less request based on `base` (model, seed, extra body).
llm::ChatRequest ToolLessRequest(const llm::ChatRequest& base, std::string prompt, std::int64_t max_tokens,
                                 double temperature);

// The text between the last "<tag>" and the following "</tag>", trimmed.
// kParseError (saying what was missing) when absent or empty.
Result<std::string> ExtractTagged(const std::string& content, const std::string& tag);

// The judge's reply as the answer journaled for it: the tagged answer,
// trimmed and lower-cased (ASCII), is the name of kYes or kNo
// (journal::JudgeAnswerName: the words the judge prompt asks for); anything
// else (or no tag) is kUnparseable. Only kYes lets rollout 1 go on.
journal::JudgeAnswer ParseJudgeReply(const std::string& content, const std::string& tag);

}  // namespace seragen::pipeline
