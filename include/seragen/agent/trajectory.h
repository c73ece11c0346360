// The record of one rollout: everything needed to audit it and to build
// training data from it. Written once, when the rollout ends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "seragen/agent/exit_status.h"
#include "seragen/llm/types.h"

namespace seragen::agent {

// One model call and what the harness did with it.
struct TurnRecord {
  int step = 0;                      // accepted turns before this call
  bool accepted = false;             // became part of the history
  std::string format_error;          // kind, when not accepted: no_tool_call, multiple_tool_calls,
                                     // tool_markup, invalid_arguments, invalid_call
  std::string format_error_message;  // what the model was told
  std::string failure;               // llm failure (status text) when the call failed
  std::string failure_class;
  llm::ChatResponse response;  // empty when the call failed
  std::string observation;     // tool result shown to the model
  bool command_timed_out = false;
  // A shell command's exit status (absent for other tools, timeouts, and a
  // replayed call whose result differed from the recorded one).
  std::optional<int> command_exit_code;
  // Answered from the rollout's turn log when it was resumed after a kill
  // (the model was not asked again; usage and llm_seconds are the original's).
  bool replayed = false;
  // A replayed tool call whose new result differs from the recorded one: the
  // history keeps the recorded observation (what the model saw), and this is
  // what running the call again produced.
  bool replay_observation_differs = false;
  std::string replay_observation;
  double llm_seconds = 0;
  double tool_seconds = 0;
};

struct Totals {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t cached_prompt_tokens = 0;
  double cost_usd = 0;
  int model_calls = 0;
  int replayed_calls = 0;  // of model_calls: answered from the turn log on resume
  int steps = 0;           // accepted turns
  int format_errors = 0;
  double wall_seconds = 0;
  double command_seconds = 0;  // summed run time of tool calls (agent.max_command_seconds)
};

struct Trajectory {
  std::string task_id;
  int rollout = 1;  // 1 or 2
  // The model id the server reported in its latest answer (what produced the
  // turns); the configured llm.model until an answer names one.
  std::string model;
  std::string prompts_hash;
  std::vector<llm::ToolSpec> tools;
  std::vector<llm::Message> history;  // system, instance, then accepted turns and tool results
  std::vector<TurnRecord> turns;      // every model call, including failed attempts
  ExitStatus exit_status = ExitStatus::kSubmitted;
  std::string exit_detail;
  // exit_detail for people (the run's `aborted:` line, the log): a failed
  // model call's message without the class tag that Status::Text() adds.
  // In memory only, never encoded; empty where it equals exit_detail.
  std::string exit_words;
  std::string patch;  // final diff vs base (computed by the harness): exact bytes,
                      // possibly not UTF-8 (files in Latin-1 etc.); what git apply
                      // and verification use. Show RepairUtf8(patch) to models.
  bool has_patch = false;
  // The rollout ended on a limit (IsAutosubmitExit) with a non-empty diff,
  // which stands as its submission; exit_status names the limit. Training
  // rows take only plain submits (exit_status == kSubmitted) by default.
  bool autosubmitted = false;
  std::string patch_error;  // when the diff could not be computed
  Totals totals;
  std::string started_at;  // ISO-8601
  std::string finished_at;
};

}  // namespace seragen::agent
