// The bridge between a rollout's turns (agent/turn_replay.h) and its turn log
// in the run store (journal/turn_log.h): TurnLogSink journals a running
// rollout; RecordedTurnsFrom turns a loaded log back into the turns a resumed
// rollout replays.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "seragen/agent/turn_replay.h"
#include "seragen/journal/record.h"
#include "seragen/journal/turn_log.h"
#include "seragen/pipeline/answer_tokens.h"
#include "seragen/pipeline/run_store.h"

namespace seragen::pipeline {

// Appends to the turn log `ref` of `store` (StartTurnLog already called).
// Thread-safe (the rollout calls it from workers, one call at a time).
class TurnLogSink final : public agent::TurnSink {
 public:
  // `already`: the tokens of the answers the log holds already (a continued log).
  TurnLogSink(RunStore* store, std::string ref, AnswerTokens already);
  Status Answered(const agent::RecordedTurn& turn) override;
  Status ToolDone(int call, const agent::RecordedOutcome& outcome) override;
  // The tokens of every answer durable in the log.
  AnswerTokens journaled() const;
  const std::string& ref() const { return ref_; }

 private:
  RunStore* store_;
  std::string ref_;
  mutable std::mutex mu_;
  AnswerTokens journaled_;
};

// The turn log a rollout about to start writes, and the turns it replays.
struct ResumedRollout {
  std::string ref;                          // journal::TurnLogRef of the rollout attempt
  journal::TurnLogHeader header;            // of the log being written
  std::vector<agent::RecordedTurn> replay;  // empty: the rollout starts from scratch
  std::unique_ptr<TurnLogSink> sink;        // nullptr: the log could not be started (see warning)
  std::string restart_reason;               // a log was found but cannot be replayed: why
  std::string warning;
};

// Finds the turn log of the rollout attempt `header` names (task, rollout,
// attempt). A readable log is continued and its turns are replayed; a
// damaged one, or one whose answers cannot be read back, is discarded
// (restart_reason; header.restarts counts it); none (or replay_allowed
// false) starts a new log with `header`. Blocking: call on a worker.
ResumedRollout OpenTurnLog(RunStore* store, journal::TurnLogHeader header, bool replay_allowed);

// kParseError naming the call when a response or an outcome kind cannot be
// read back (the log is then not replayable).
Result<std::vector<agent::RecordedTurn>> RecordedTurnsFrom(const journal::LoadedTurnLog& log);

}  // namespace seragen::pipeline
