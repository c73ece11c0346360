// Resuming a rollout inside itself: the answered model turns a rollout hands
// to a TurnSink while it runs (each made durable before its tool call runs),
// and the same turns handed back to a new Rollout (RolloutSpec::replay) after
// a kill, which answers its first model calls from them instead of the model.
//
// Replay goes through the normal answer path, so everything a rollout keeps
// (history, rejected turns shown once, format-error and timeout counters,
// token totals) is rebuilt exactly. Tool calls are executed again on a fresh
// working copy; where an observation now differs from the recorded one, the
// model keeps seeing the recorded text (its later answers were conditioned on
// it) and the turn notes the difference (TurnRecord::replay_observation).
// A replay that cannot continue (a request that is not the recorded one, a
// tool outcome of another kind) ends the rollout with exit_replay_diverged;
// the caller then starts the rollout again from scratch.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "seragen/agent/tool_executor.h"
#include "seragen/base/result.h"
#include "seragen/llm/types.h"

namespace seragen::agent {

// What a tool call did, as far as the model saw it.
struct RecordedOutcome {
  ToolOutcome::Kind kind = ToolOutcome::Kind::kObservation;
  std::string text;
  bool timed_out = false;

  friend bool operator==(const RecordedOutcome&, const RecordedOutcome&) = default;
};

// One answered model call of a rollout.
struct RecordedTurn {
  int call = 0;                // 0-based index among the rollout's model calls
  std::string request_sha256;  // RequestDigest of the request it answered
  llm::ChatResponse response;
  double llm_seconds = 0;
  // The turn's tool call, when it ran and was recorded (absent for rejected
  // turns and for a call the kill interrupted).
  std::optional<RecordedOutcome> outcome;
};

// "observation", "invalid_call", "harness_error", "patch_too_large".
std::string_view ToolOutcomeKindName(ToolOutcome::Kind kind);
std::optional<ToolOutcome::Kind> ParseToolOutcomeKind(std::string_view name);

// SHA-256 hex of everything a request sends: model, sampling, limits, seed,
// stop, extra body, tool choice, tools and every message field. Two requests
// with the same digest ask the model the same thing.
std::string RequestDigest(const llm::ChatRequest& request);

// Where a rollout journals its turns. Both methods are called on a worker
// thread, never concurrently for one rollout, and must return only once what
// they were given is durable. A failure is logged by the rollout, which then
// stops journaling (the rollout itself goes on); the sink must make sure a
// partial log is never replayed as a whole one.
class TurnSink {
 public:
  virtual ~TurnSink() = default;
  // A model call was answered (successfully); called before its tool call runs.
  virtual Status Answered(const RecordedTurn& turn) = 0;
  // The tool call of model call `call` ran (not called for replayed turns
  // whose outcome was already recorded, nor for a harness failure, which
  // the model never saw: a resumed rollout runs that call again).
  virtual Status ToolDone(int call, const RecordedOutcome& outcome) = 0;
};

}  // namespace seragen::agent
