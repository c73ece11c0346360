#include "seragen/agent/trajectory_json.h"

#include <nlohmann/json.hpp>

#include "seragen/base/base64.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/utf8.h"

namespace seragen::agent {
namespace {

using json = nlohmann::ordered_json;  // tool schemas keep their order

// A tool's parameter schema as a value; text that is too deep or not JSON is
// kept as a string (total: a trajectory is saved whatever the tools say).
json SchemaJson(const std::string& text) {
  if (CheckJsonDepth(text, "tool parameters", kMaxJsonDepth).ok()) {
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded()) return j;
  }
  return json(text);
}

json ToolCallJson(const llm::ToolCall& c) {
  return {{"id", c.id},
          {"name", c.name},
          {"arguments_raw", c.arguments_raw},
          {"arguments_valid", c.arguments_valid},
          {"arguments_json", c.arguments_json},
          {"arguments_error", c.arguments_error}};
}

json MessageJson(const llm::Message& m) {
  json j = {{"role", std::string(llm::RoleName(m.role))}, {"content", m.content}};
  if (!m.reasoning.empty()) j["reasoning"] = m.reasoning;
  if (!m.tool_calls.empty()) {
    j["tool_calls"] = json::array();
    for (const auto& c : m.tool_calls) j["tool_calls"].push_back(ToolCallJson(c));
  }
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  if (!m.name.empty()) j["name"] = m.name;
  return j;
}

json UsageJson(const llm::Usage& u) {
  json j = {{"present", u.present},
            {"prompt_tokens", u.prompt_tokens},
            {"completion_tokens", u.completion_tokens},
            {"total_tokens", u.total_tokens}};
  if (u.cached_prompt_tokens) j["cached_prompt_tokens"] = *u.cached_prompt_tokens;
  if (u.reasoning_tokens) j["reasoning_tokens"] = *u.reasoning_tokens;
  return j;
}

json ResponseJson(const llm::ChatResponse& r) {
  json calls = json::array();
  for (const auto& c : r.tool_calls) calls.push_back(ToolCallJson(c));
  return {{"id", r.id},
          {"model", r.model},
          {"content", r.content},
          {"content_was_null", r.content_was_null},
          {"reasoning", r.reasoning},
          {"reasoning_source", std::string(llm::ReasoningSourceName(r.reasoning_source))},
          {"tool_calls", calls},
          {"finish_reason", r.finish_reason},
          {"usage", UsageJson(r.usage)},
          {"endpoint", r.endpoint},
          {"attempts", r.timings.attempts},
          {"raw_body", r.raw_body},
          {"tool_issue", std::string(llm::ToolIssueName(r.tool_issue))},
          {"tool_issue_detail", r.tool_issue_detail}};
}

}  // namespace

std::string ResponseToJson(const llm::ChatResponse& response) {
  return ResponseJson(response).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string TrajectoryToJson(const Trajectory& t) {
  json tools = json::array();
  for (const auto& s : t.tools) {
    tools.push_back({{"name", s.name}, {"description", s.description}, {"parameters", SchemaJson(s.parameters_json)}});
  }
  json history = json::array();
  for (const auto& m : t.history) history.push_back(MessageJson(m));
  json turns = json::array();
  for (const auto& turn : t.turns) {
    json tj = {{"step", turn.step},
               {"accepted", turn.accepted},
               {"llm_seconds", turn.llm_seconds},
               {"tool_seconds", turn.tool_seconds}};
    if (!turn.format_error.empty()) {
      tj["format_error"] = turn.format_error;
      tj["format_error_message"] = turn.format_error_message;
    }
    if (!turn.failure.empty()) {
      tj["failure"] = turn.failure;
      tj["failure_class"] = turn.failure_class;
    } else {
      tj["response"] = ResponseJson(turn.response);
    }
    if (!turn.observation.empty()) tj["observation"] = turn.observation;
    if (turn.command_timed_out) tj["command_timed_out"] = true;
    if (turn.command_exit_code) tj["command_exit_code"] = *turn.command_exit_code;
    if (turn.replayed) tj["replayed"] = true;
    if (turn.replay_observation_differs) {
      tj["replay_observation_differs"] = true;
      tj["replay_observation"] = turn.replay_observation;
    }
    turns.push_back(std::move(tj));
  }
  const Totals& tt = t.totals;
  json j = {{"format", "seragen-trajectory"},
            {"version", kTrajectoryFormatVersion},
            {"task_id", t.task_id},
            {"rollout", t.rollout},
            {"model", t.model},
            {"prompts_hash", t.prompts_hash},
            {"tools", tools},
            {"history", history},
            {"turns", turns},
            {"exit_status", std::string(ExitStatusName(t.exit_status))},
            {"exit_detail", t.exit_detail},
            {"patch", RepairUtf8(t.patch)},
            {"has_patch", t.has_patch},
            {"patch_error", t.patch_error},
            {"totals",
             {{"prompt_tokens", tt.prompt_tokens},
              {"completion_tokens", tt.completion_tokens},
              {"cached_prompt_tokens", tt.cached_prompt_tokens},
              {"cost_usd", tt.cost_usd},
              {"model_calls", tt.model_calls},
              {"replayed_calls", tt.replayed_calls},
              {"steps", tt.steps},
              {"format_errors", tt.format_errors},
              {"wall_seconds", tt.wall_seconds},
              {"command_seconds", tt.command_seconds}}},
            {"started_at", t.started_at},
            {"finished_at", t.finished_at}};
  // "patch" is the text form (UTF-8, for people and training records); a patch
  // that is not valid UTF-8 also keeps its exact bytes, for git apply and scoring.
  if (t.autosubmitted) j["autosubmitted"] = true;
  if (!IsValidUtf8(t.patch)) j["patch_base64"] = Base64Encode(t.patch);
  // Every string here may hold outside bytes: replace invalid UTF-8, never throw.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace seragen::agent
