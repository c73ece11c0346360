// Rollout: one agent episode, as an asynchronous state machine.
//
// Start() sends the first request; every later step happens in callbacks on
// `loop` (model answers are posted there from whatever thread the ChatClient
// uses; tool calls and the final diff run on `workers`). `done` runs exactly
// once, on `loop`. All state is touched only on `loop`, so Rollout needs no
// locks. Keep the shared_ptr alive until `done` (Start holds a reference).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "seragen/agent/agent_messages.h"
#include "seragen/agent/tool_executor.h"
#include "seragen/agent/trajectory.h"
#include "seragen/agent/turn_replay.h"
#include "seragen/base/clock.h"
#include "seragen/base/executor.h"
#include "seragen/base/pricing.h"
#include "seragen/llm/chat_client.h"

namespace seragen::agent {

// Every limit here ends the rollout before its next model call; 0 turns one off.
struct RolloutLimits {
  int max_steps = 100;                            // accepted turns
  int max_model_calls = 0;                        // every model call, format-error retries included (SERA's count)
  std::chrono::milliseconds max_command_time{0};  // summed run time of tool calls
  int max_format_errors = 3;
  std::chrono::milliseconds wall_clock{1800000};
  int max_consecutive_timeouts = 3;
  std::int64_t max_tokens = 0;  // 0 = unlimited
  double max_cost_usd = 0;      // 0 = unlimited
  // Approximate bytes of the trajectory record (model text, tool calls,
  // observations; history and turn records both counted). Checked before
  // every model call; past it the rollout ends as exit_trajectory_too_large.
  // 0 = unlimited.
  std::int64_t max_trajectory_bytes = 0;
  // Bytes of one answer's text (content, reasoning, tool-call arguments).
  // A longer answer is cut where it arrives (kept: a short head of each
  // text) and rejected as a format error ("answer_too_large"), so neither
  // the record nor the next request carries it. 0 = unlimited.
  std::int64_t max_answer_bytes = 0;
};

struct RolloutSpec {
  std::string task_id;
  int rollout = 1;
  std::string system_prompt;
  std::string instance_prompt;
  std::string prompts_hash;
  llm::ChatRequest request_template;  // model, sampling, max_tokens, seed, tool_choice, extra body
  llm::CallOptions call_options;      // per-attempt timeout, stream; deadline is set per call
  RolloutLimits limits;
  // Per-token prices for limits.max_cost_usd: each answer is charged at the
  // price of the endpoint that gave it (llm::ChatResponse::endpoint).
  PriceBook prices;
  // Turns answered before a kill (turn_replay.h): the first replay.size()
  // model calls are answered from them, in order, instead of by `chat`.
  std::vector<RecordedTurn> replay;
};

struct RolloutDeps {
  llm::ChatClient* chat = nullptr;
  ToolExecutor* tools = nullptr;
  PatchSource* patch = nullptr;
  Executor* loop = nullptr;
  Executor* workers = nullptr;
  const Clock* clock = nullptr;
  const AgentMessages* messages = nullptr;
  // Optional: journals every answered turn before its tool call runs.
  TurnSink* turns = nullptr;
};

class Rollout : public std::enable_shared_from_this<Rollout> {
 public:
  using DoneCallback = std::function<void(Trajectory)>;

  static std::shared_ptr<Rollout> Create(RolloutSpec spec, RolloutDeps deps);

  // Call on `loop`.
  void Start(DoneCallback done);
  // Stops at the next opportunity with exit_cancelled (the diff is still
  // captured). Call on `loop`.
  void Cancel();

 private:
  Rollout(RolloutSpec spec, RolloutDeps deps);
  void Step();
  void OnModelAnswer(Result<llm::ChatResponse> answer, Clock::SteadyTime sent);
  void OnReplayedAnswer(int call);
  // The latest turn's answer is in traj_.turns.back(): reject it or run its tool call.
  void HandleAnswer();
  void RunTool(const llm::ToolCall& call);
  void OnToolDone(ToolOutcome outcome, const Status& journaled);
  // Compares a replayed tool call's outcome with the recorded one; false when
  // the rollout ended (diverged).
  bool MatchRecordedOutcome(ToolOutcome& outcome);
  void JournalFailed(const Status& status);
  void RejectTurn(const std::string& kind, const std::string& message);
  std::optional<ExitStatus> LimitReached(std::string* detail) const;
  void Finish(ExitStatus status, std::string detail, std::string words = {});
  void Account(const llm::ChatResponse& answer);  // its tokens, and their cost at its endpoint's price

  RolloutSpec spec_;
  RolloutDeps deps_;
  DoneCallback done_;
  Trajectory traj_;
  Clock::SteadyTime started_;
  std::shared_ptr<llm::CallHandle> in_flight_;
  // A rejected turn and the error shown for it, sent with the next request
  // only (never kept in the history).
  std::optional<llm::Message> retry_assistant_;
  std::optional<llm::Message> retry_error_;
  int consecutive_format_errors_ = 0;
  int consecutive_timeouts_ = 0;
  std::int64_t record_bytes_ = 0;  // approximate size of traj_, see RolloutLimits
  std::string request_digest_;     // of the request in flight (journaling or replay)
  bool journaling_ = false;        // deps_.turns is set and has not failed
  bool cancelled_ = false;
  bool finished_ = false;
};

}  // namespace seragen::agent
