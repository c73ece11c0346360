#include "seragen/agent/rollout.h"

#include "agent/answer_bound.h"
#include "seragen/base/log.h"
#include "seragen/base/template.h"

namespace seragen::agent {
namespace {

// A longer `model` in an answer is not an id; the configured one is kept.
constexpr std::size_t kMaxServedModelBytes = 256;

double Seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Bytes a response adds to the trajectory record, as stored (wire body included).
std::int64_t ResponseBytes(const llm::ChatResponse& r) {
  std::size_t n = r.content.size() + r.reasoning.size() + r.raw_body.size() + r.tool_issue_detail.size();
  for (const auto& c : r.tool_calls) n += c.name.size() + c.arguments_raw.size() + c.arguments_json.size();
  return static_cast<std::int64_t>(n);
}

bool IsPatchTooLarge(const Status& s) { return s.code() == StatusCode::kResourceExhausted; }

std::string ToolNames(const std::vector<llm::ToolSpec>& specs) {
  std::string out;
  for (const auto& s : specs) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

// A message text with placeholders filled; falls back to the raw template
// (never loses the error) if the template itself is broken.
std::string Fill(const std::string& tmpl, const TemplateValues& values) {
  Result<std::string> r = RenderTemplate(tmpl, values, "format error message");
  return r.ok() ? *r : tmpl;
}

}  // namespace

std::shared_ptr<Rollout> Rollout::Create(RolloutSpec spec, RolloutDeps deps) {
  return std::shared_ptr<Rollout>(new Rollout(std::move(spec), deps));
}

Rollout::Rollout(RolloutSpec spec, RolloutDeps deps) : spec_(std::move(spec)), deps_(deps) {}

void Rollout::Start(DoneCallback done) {
  done_ = std::move(done);
  started_ = deps_.clock->Now();
  traj_.task_id = spec_.task_id;
  traj_.rollout = spec_.rollout;
  traj_.model = spec_.request_template.model;
  traj_.prompts_hash = spec_.prompts_hash;
  traj_.tools = deps_.tools->Specs();
  traj_.started_at = FormatIso8601(deps_.clock->WallNow());
  traj_.history.push_back({llm::Role::kSystem, spec_.system_prompt, {}, {}, {}, {}});
  traj_.history.push_back({llm::Role::kUser, spec_.instance_prompt, {}, {}, {}, {}});
  journaling_ = deps_.turns != nullptr;
  Step();
}

void Rollout::Cancel() {
  cancelled_ = true;
  if (in_flight_) in_flight_->Cancel();
}

std::optional<ExitStatus> Rollout::LimitReached(std::string* detail) const {
  const RolloutLimits& lim = spec_.limits;
  if (lim.max_model_calls > 0 && traj_.totals.model_calls >= lim.max_model_calls) {
    *detail = "model call limit " + std::to_string(lim.max_model_calls) + " reached";
    return ExitStatus::kModelCalls;
  }
  if (lim.max_steps > 0 && traj_.totals.steps >= lim.max_steps) {
    *detail = "step limit " + std::to_string(lim.max_steps) + " reached";
    return ExitStatus::kSteps;
  }
  if (lim.max_command_time.count() > 0 && traj_.totals.command_seconds * 1000 >= lim.max_command_time.count()) {
    *detail = "commands ran " + std::to_string(traj_.totals.command_seconds) + " s in all (limit " +
              std::to_string(lim.max_command_time.count() / 1000.0) + " s)";
    return ExitStatus::kCommandTime;
  }
  if (deps_.clock->Now() - started_ >= lim.wall_clock) {
    *detail = "wall-clock limit of " + std::to_string(lim.wall_clock.count() / 1000.0) + " s reached";
    return ExitStatus::kWallClock;
  }
  std::int64_t tokens = traj_.totals.prompt_tokens + traj_.totals.completion_tokens;
  if (lim.max_tokens > 0 && tokens >= lim.max_tokens) {
    *detail = "token budget " + std::to_string(lim.max_tokens) + " spent (" + std::to_string(tokens) + ")";
    return ExitStatus::kTokens;
  }
  if (lim.max_cost_usd > 0 && traj_.totals.cost_usd >= lim.max_cost_usd) {
    *detail = "cost budget of $" + std::to_string(lim.max_cost_usd) + " spent";
    return ExitStatus::kCost;
  }
  if (lim.max_trajectory_bytes > 0 && record_bytes_ >= lim.max_trajectory_bytes) {
    *detail = "trajectory record reached " + std::to_string(record_bytes_) + " bytes (limit " +
              std::to_string(lim.max_trajectory_bytes) + ")";
    return ExitStatus::kTrajectoryTooLarge;
  }
  return std::nullopt;
}

void Rollout::Step() {
  if (finished_) return;
  if (cancelled_) return Finish(ExitStatus::kCancelled, "cancelled");
  std::string detail;
  if (auto limit = LimitReached(&detail)) return Finish(*limit, detail);

  llm::ChatRequest req = spec_.request_template;
  req.messages = traj_.history;
  if (retry_assistant_) req.messages.push_back(*retry_assistant_);
  if (retry_error_) req.messages.push_back(*retry_error_);
  req.tools = traj_.tools;

  llm::CallOptions opts = spec_.call_options;
  auto remaining =
      std::chrono::duration_cast<std::chrono::milliseconds>(spec_.limits.wall_clock - (deps_.clock->Now() - started_));
  opts.deadline = std::max(std::chrono::milliseconds(1), std::min(opts.deadline, remaining));
  opts.task_id = spec_.task_id;

  auto self = shared_from_this();
  const int call = traj_.totals.model_calls;
  const bool replay = call < static_cast<int>(spec_.replay.size());
  if (replay || journaling_) request_digest_ = RequestDigest(req);
  if (replay) {
    if (spec_.replay[call].request_sha256 != request_digest_) {
      return Finish(ExitStatus::kReplayDiverged,
                    "model call " + std::to_string(call + 1) + " is not the request recorded in the turn log");
    }
    deps_.loop->Post([self, call] { self->OnReplayedAnswer(call); });
    return;
  }
  Clock::SteadyTime sent = deps_.clock->Now();
  Executor* loop = deps_.loop;
  in_flight_ = deps_.chat->Complete(std::move(req), opts, [self, loop, sent](Result<llm::ChatResponse> r) {
    loop->Post([self, sent, r = std::move(r)]() mutable { self->OnModelAnswer(std::move(r), sent); });
  });
}

void Rollout::Account(const llm::ChatResponse& answer) {
  const llm::Usage& usage = answer.usage;
  Totals& t = traj_.totals;
  t.prompt_tokens += usage.prompt_tokens;
  t.completion_tokens += usage.completion_tokens;
  std::int64_t cached = usage.cached_prompt_tokens.value_or(0);
  t.cached_prompt_tokens += cached;
  t.cost_usd += TokenCostUsd(spec_.prices.For(answer.endpoint), usage.prompt_tokens, cached, usage.completion_tokens);
}

void Rollout::OnModelAnswer(Result<llm::ChatResponse> answer, Clock::SteadyTime sent) {
  in_flight_.reset();
  if (finished_) return;
  traj_.totals.model_calls++;
  TurnRecord turn;
  turn.step = traj_.totals.steps;
  turn.llm_seconds = Seconds(deps_.clock->Now() - sent);

  if (cancelled_) {
    turn.failure = "cancelled";
    turn.failure_class = "cancelled";
    if (answer.ok()) turn.response = *answer;
    traj_.turns.push_back(std::move(turn));
    return Finish(ExitStatus::kCancelled, "cancelled during a model call");
  }
  if (!answer.ok()) {
    llm::FailureClass fc = llm::FailureClassOf(answer.status());
    turn.failure = answer.status().ToString();
    turn.failure_class = std::string(llm::FailureClassName(fc));
    traj_.turns.push_back(std::move(turn));
    if (cancelled_ || fc == llm::FailureClass::kCancelled) {
      return Finish(ExitStatus::kCancelled, "cancelled during a model call");
    }
    std::string detail;
    if (auto limit = LimitReached(&detail); limit == ExitStatus::kWallClock) {
      return Finish(*limit, detail);
    }
    switch (fc) {
      case llm::FailureClass::kContextOverflow:
        return Finish(ExitStatus::kContext, answer.status().Text(), answer.status().message());
      case llm::FailureClass::kConfig:
        return Finish(ExitStatus::kConfigError, answer.status().Text(), answer.status().message());
      case llm::FailureClass::kQuota:
        return Finish(ExitStatus::kQuota, answer.status().Text(), answer.status().message());
      default: return Finish(ExitStatus::kLlmError, answer.status().Text(), answer.status().message());
    }
  }

  llm::ChatResponse& resp = *answer;
  Account(resp);
  // Cut before it is stored, journaled or shown again (HandleAnswer rejects it).
  BoundAnswer(resp, spec_.limits.max_answer_bytes);
  record_bytes_ += ResponseBytes(resp);
  turn.response = resp;
  traj_.turns.push_back(std::move(turn));
  if (!journaling_) return HandleAnswer();

  // Durable before anything acts on it: a resumed rollout answers this call from the log.
  RecordedTurn recorded{traj_.totals.model_calls - 1, request_digest_, traj_.turns.back().response,
                        traj_.turns.back().llm_seconds, std::nullopt};
  auto self = shared_from_this();
  Executor* loop = deps_.loop;
  TurnSink* sink = deps_.turns;
  deps_.workers->Post([self, loop, sink, recorded = std::move(recorded)] {
    Status s = sink->Answered(recorded);
    loop->Post([self, s] {
      if (self->finished_) return;
      if (!s.ok()) self->JournalFailed(s);
      self->HandleAnswer();
    });
  });
}

void Rollout::OnReplayedAnswer(int call) {
  if (finished_) return;
  const RecordedTurn& recorded = spec_.replay[call];
  traj_.totals.model_calls++;
  traj_.totals.replayed_calls++;
  TurnRecord turn;
  turn.step = traj_.totals.steps;
  turn.llm_seconds = recorded.llm_seconds;
  turn.replayed = true;
  turn.response = recorded.response;
  Account(turn.response);
  record_bytes_ += ResponseBytes(turn.response);
  traj_.turns.push_back(std::move(turn));
  HandleAnswer();
}

void Rollout::JournalFailed(const Status& status) {
  if (!journaling_) return;
  journaling_ = false;
  log::Logger("agent", spec_.task_id)
      .Warn("rollout {}: cannot journal its turns ({}); it goes on unjournaled", spec_.rollout, status.ToString());
}

void Rollout::HandleAnswer() {
  const llm::ChatResponse& resp = traj_.turns.back().response;
  // A gateway may route the configured name to another model: record what answered.
  if (!resp.model.empty() && resp.model.size() <= kMaxServedModelBytes) traj_.model = resp.model;
  // Decide whether the turn is well-formed: exactly one call, valid JSON arguments.
  const AgentMessages& msg = *deps_.messages;
  TemplateValues values{{"tool_names", ToolNames(traj_.tools)},
                        {"count", std::to_string(resp.tool_calls.size())},
                        {"detail", resp.tool_issue_detail}};
  if (resp.tool_issue == llm::ToolIssue::kTooLarge) {
    values["max_bytes"] = std::to_string(spec_.limits.max_answer_bytes);
    return RejectTurn("answer_too_large", Fill(msg.answer_too_large, values));
  }
  if (resp.tool_calls.empty()) {
    if (resp.tool_issue == llm::ToolIssue::kToolFormat) {
      return RejectTurn("tool_markup", Fill(msg.tool_markup, values));
    }
    return RejectTurn("no_tool_call", Fill(msg.no_tool_call, values));
  }
  if (resp.tool_calls.size() > 1) {
    return RejectTurn("multiple_tool_calls", Fill(msg.multiple_tool_calls, values));
  }
  const llm::ToolCall& call = resp.tool_calls.front();
  if (!call.arguments_valid) {
    values["detail"] = call.arguments_error;
    if (resp.finish_reason == "length") {
      // Without a cap sent, the server stopped where the context window ran out.
      values["max_tokens"] = std::to_string(spec_.request_template.max_tokens.value_or(resp.usage.completion_tokens));
      return RejectTurn("invalid_arguments", Fill(msg.truncated, values));
    }
    return RejectTurn("invalid_arguments", Fill(msg.invalid_arguments, values));
  }
  RunTool(call);
}

void Rollout::RunTool(const llm::ToolCall& call) {
  const int index = traj_.totals.model_calls - 1;
  // A replayed call whose outcome is on record is not journaled again.
  bool recorded = traj_.turns.back().replayed && spec_.replay[index].outcome.has_value();
  TurnSink* sink = journaling_ && !recorded ? deps_.turns : nullptr;
  auto self = shared_from_this();
  Executor* loop = deps_.loop;
  ToolExecutor* tools = deps_.tools;
  deps_.workers->Post([self, loop, tools, sink, call, index] {
    ToolOutcome outcome = tools->Execute(call);
    Status journaled;
    // A harness failure is not something the model saw: a resumed rollout runs that call again.
    if (sink && outcome.kind != ToolOutcome::Kind::kHarnessError) {
      journaled = sink->ToolDone(index, RecordedOutcome{outcome.kind, outcome.text, outcome.timed_out});
    }
    loop->Post(
        [self, outcome = std::move(outcome), journaled]() mutable { self->OnToolDone(std::move(outcome), journaled); });
  });
}

bool Rollout::MatchRecordedOutcome(ToolOutcome& outcome) {
  TurnRecord& turn = traj_.turns.back();
  const int index = traj_.totals.model_calls - 1;
  if (!turn.replayed || !spec_.replay[index].outcome) return true;
  const RecordedOutcome& was = *spec_.replay[index].outcome;
  if (was.kind != outcome.kind) {
    Finish(ExitStatus::kReplayDiverged, "the tool call of model call " + std::to_string(index + 1) + " ended as " +
                                            std::string(ToolOutcomeKindName(outcome.kind)) + ", recorded as " +
                                            std::string(ToolOutcomeKindName(was.kind)));
    return false;
  }
  if (was.text != outcome.text || was.timed_out != outcome.timed_out) {
    // The model's later answers were conditioned on what it saw then.
    turn.replay_observation_differs = true;
    turn.replay_observation = std::move(outcome.text);
    outcome.text = was.text;
    outcome.timed_out = was.timed_out;
    outcome.exit_code.reset();  // not recorded: the one the model saw is unknown
  }
  return true;
}

void Rollout::RejectTurn(const std::string& kind, const std::string& message) {
  TurnRecord& turn = traj_.turns.back();
  turn.accepted = false;
  turn.format_error = kind;
  turn.format_error_message = message;
  traj_.totals.format_errors++;
  consecutive_format_errors_++;
  if (consecutive_format_errors_ >= spec_.limits.max_format_errors) {
    return Finish(ExitStatus::kFormat,
                  std::to_string(consecutive_format_errors_) + " consecutive malformed turns (last: " + kind + ")");
  }
  // Show the model its rejected turn and the error once; neither enters the history.
  const llm::ChatResponse& resp = turn.response;
  llm::Message bad{llm::Role::kAssistant, resp.content, {}, {}, {}, {}};
  if (bad.content.empty() && !resp.tool_calls.empty()) {
    for (const auto& c : resp.tool_calls) bad.content += c.name + " " + c.arguments_raw + "\n";
  }
  if (bad.content.empty()) bad.content = deps_.messages->empty_reply;
  retry_assistant_ = std::move(bad);
  retry_error_ = llm::Message{llm::Role::kUser, message, {}, {}, {}, {}};
  Step();
}

void Rollout::OnToolDone(ToolOutcome outcome, const Status& journaled) {
  if (finished_) return;
  if (!journaled.ok()) JournalFailed(journaled);
  if (!MatchRecordedOutcome(outcome)) return;
  TurnRecord& turn = traj_.turns.back();
  turn.tool_seconds = std::chrono::duration<double>(outcome.duration).count();
  traj_.totals.command_seconds += turn.tool_seconds;
  if (outcome.kind == ToolOutcome::Kind::kInvalidCall) {
    TemplateValues values{{"detail", outcome.text}, {"tool_names", ToolNames(traj_.tools)}};
    return RejectTurn("invalid_call", Fill(deps_.messages->invalid_call, values));
  }
  if (outcome.kind == ToolOutcome::Kind::kHarnessError) {
    turn.observation = outcome.text;
    return Finish(ExitStatus::kToolError, outcome.text);
  }
  if (outcome.kind == ToolOutcome::Kind::kPatchTooLarge) {
    turn.observation = outcome.text;
    return Finish(ExitStatus::kPatchTooLarge, outcome.text);
  }
  // Accepted: append the assistant turn and the observation to the history.
  turn.accepted = true;
  turn.observation = outcome.text;
  turn.command_timed_out = outcome.timed_out;
  turn.command_exit_code = outcome.exit_code;
  consecutive_format_errors_ = 0;
  retry_assistant_.reset();
  retry_error_.reset();
  const llm::ChatResponse& resp = turn.response;
  llm::Message assistant{llm::Role::kAssistant, resp.content, resp.reasoning, resp.tool_calls, {}, {}};
  traj_.history.push_back(std::move(assistant));
  const llm::ToolCall& call = resp.tool_calls.front();
  traj_.history.push_back({llm::Role::kTool, outcome.text, {}, {}, call.id, call.name});
  traj_.totals.steps++;
  // The accepted reply is stored twice (turn and history), so is the observation.
  record_bytes_ += ResponseBytes(resp) - static_cast<std::int64_t>(resp.raw_body.size()) +
                   2 * static_cast<std::int64_t>(outcome.text.size());

  consecutive_timeouts_ = outcome.timed_out ? consecutive_timeouts_ + 1 : 0;
  if (outcome.disk_limit) return Finish(ExitStatus::kDiskLimit, "the working copy exceeded its disk limit");
  if (outcome.submitted) return Finish(ExitStatus::kSubmitted, "submitted");
  if (consecutive_timeouts_ >= spec_.limits.max_consecutive_timeouts) {
    return Finish(ExitStatus::kCommandTimeouts,
                  std::to_string(consecutive_timeouts_) + " consecutive commands timed out");
  }
  Step();
}

void Rollout::Finish(ExitStatus status, std::string detail, std::string words) {
  if (finished_) return;
  finished_ = true;
  traj_.exit_status = status;
  traj_.exit_detail = std::move(detail);
  traj_.exit_words = std::move(words);
  auto self = shared_from_this();
  Executor* loop = deps_.loop;
  PatchSource* patch = deps_.patch;
  deps_.workers->Post([self, loop, patch] {
    Result<std::string> p = patch->CurrentPatch();
    loop->Post([self, p = std::move(p)]() mutable {
      if (p.ok()) {
        self->traj_.patch = std::move(*p);
        self->traj_.has_patch = !self->traj_.patch.empty();
        self->traj_.autosubmitted = self->traj_.has_patch && IsAutosubmitExit(self->traj_.exit_status);
      } else {
        self->traj_.patch_error = p.status().ToString();
        // An oversized diff is the agent's outcome whatever else ended the
        // rollout, unless the rollout must be redone anyway (infrastructure).
        if (IsPatchTooLarge(p.status()) && !IsInfrastructureExit(self->traj_.exit_status) &&
            self->traj_.exit_status != ExitStatus::kPatchTooLarge) {
          self->traj_.exit_detail = p.status().message() +
                                    " (rollout had ended: " + std::string(ExitStatusName(self->traj_.exit_status)) +
                                    ", " + self->traj_.exit_detail + ")";
          self->traj_.exit_status = ExitStatus::kPatchTooLarge;
          self->traj_.exit_words.clear();
        }
      }
      self->traj_.totals.wall_seconds = Seconds(self->deps_.clock->Now() - self->started_);
      self->traj_.finished_at = FormatIso8601(self->deps_.clock->WallNow());
      log::Logger("agent", self->spec_.task_id)
          .Info("rollout {} ended: {} ({}), {} steps, {} model calls", self->spec_.rollout,
                OutcomeName(self->traj_.exit_status, self->traj_.autosubmitted), self->traj_.exit_detail,
                self->traj_.totals.steps, self->traj_.totals.model_calls);
      DoneCallback done = std::move(self->done_);
      done(std::move(self->traj_));
    });
  });
}

}  // namespace seragen::agent
