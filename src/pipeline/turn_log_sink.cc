#include "seragen/pipeline/turn_log_sink.h"

#include <algorithm>

#include "seragen/agent/trajectory_json.h"
#include "seragen/journal/run_paths.h"

namespace seragen::pipeline {
TurnLogSink::TurnLogSink(RunStore* store, std::string ref, AnswerTokens already)
    : store_(store), ref_(std::move(ref)), journaled_(already) {}

Status TurnLogSink::Answered(const agent::RecordedTurn& turn) {
  journal::TurnLogAnswer answer{turn.call, turn.request_sha256, turn.llm_seconds, agent::ResponseToJson(turn.response)};
  SG_RETURN_IF_ERROR(store_->AppendTurnAnswer(ref_, answer));
  std::lock_guard<std::mutex> lock(mu_);
  journaled_.Add(turn.response);
  return Status::Ok();
}

Status TurnLogSink::ToolDone(int call, const agent::RecordedOutcome& outcome) {
  journal::TurnLogOutcome line{call, std::string(agent::ToolOutcomeKindName(outcome.kind)), outcome.text,
                               outcome.timed_out};
  return store_->AppendTurnOutcome(ref_, line);
}

AnswerTokens TurnLogSink::journaled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return journaled_;
}

Result<std::vector<agent::RecordedTurn>> RecordedTurnsFrom(const journal::LoadedTurnLog& log) {
  std::vector<agent::RecordedTurn> out;
  for (const journal::TurnLogTurn& t : log.turns) {
    agent::RecordedTurn turn;
    turn.call = t.answer.call;
    turn.request_sha256 = t.answer.request_sha256;
    turn.llm_seconds = t.answer.llm_seconds;
    Result<llm::ChatResponse> response = agent::ResponseFromJson(t.answer.response_json);
    if (!response.ok()) {
      return ParseError("call " + std::to_string(t.answer.call) + ": " + response.status().message());
    }
    turn.response = std::move(*response);
    if (t.outcome) {
      auto kind = agent::ParseToolOutcomeKind(t.outcome->kind);
      if (!kind)
        return ParseError("call " + std::to_string(t.answer.call) + ": unknown outcome '" + t.outcome->kind + "'");
      turn.outcome = agent::RecordedOutcome{*kind, t.outcome->text, t.outcome->timed_out};
    }
    out.push_back(std::move(turn));
  }
  return out;
}

ResumedRollout OpenTurnLog(RunStore* store, journal::TurnLogHeader header, bool replay_allowed) {
  ResumedRollout out;
  out.ref = journal::TurnLogRef(header.task_id, header.rollout, header.attempt);
  std::optional<journal::LoadedTurnLog> loaded;
  if (replay_allowed) {
    Result<journal::LoadedTurnLog> log = store->LoadTurnLog(out.ref);
    if (!log.ok() && log.status().code() != StatusCode::kNotFound) {
      out.restart_reason = log.status().ToString();
    } else if (log.ok() && log->has_header) {
      const journal::TurnLogHeader& h = log->header;
      Result<std::vector<agent::RecordedTurn>> turns = RecordedTurnsFrom(*log);
      if (h.task_id != header.task_id || h.rollout != header.rollout || h.attempt != header.attempt) {
        out.restart_reason = "its header names another rollout";
      } else if (!turns.ok()) {
        out.restart_reason = turns.status().ToString();
      } else {
        out.replay = std::move(*turns);
        loaded = std::move(*log);
      }
      if (!out.restart_reason.empty()) {
        header.restarts = std::max(header.restarts, h.restarts);
        header.discarded_tokens = std::max(header.discarded_tokens, h.discarded_tokens);
      }
    }
    if (!out.restart_reason.empty()) header.restarts++;
  }
  out.header = loaded ? loaded->header : header;
  Status started = store->StartTurnLog(out.ref, out.header, loaded ? &*loaded : nullptr);
  if (started.ok()) {
    out.sink = std::make_unique<TurnLogSink>(store, out.ref, TokensOf(out.replay));
  } else {
    out.warning = "cannot write the turn log " + out.ref + " (" + started.ToString() +
                  "); this rollout is not journaled and a kill restarts it";
  }
  return out;
}

}  // namespace seragen::pipeline
