#include "seragen/agent/trajectory_json.h"

#include <nlohmann/json.hpp>

#include "seragen/base/base64.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/utf8.h"

namespace seragen::agent {
namespace {

using nlohmann::json;

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

llm::ToolCall ToolCallFrom(const json& j) {
  llm::ToolCall c;
  c.id = j.at("id").get<std::string>();
  c.name = j.at("name").get<std::string>();
  c.arguments_raw = j.at("arguments_raw").get<std::string>();
  c.arguments_valid = j.at("arguments_valid").get<bool>();
  c.arguments_json = j.at("arguments_json").get<std::string>();
  c.arguments_error = j.value("arguments_error", "");
  return c;
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

llm::Role RoleFrom(const std::string& name) {
  if (name == "system") return llm::Role::kSystem;
  if (name == "assistant") return llm::Role::kAssistant;
  if (name == "tool") return llm::Role::kTool;
  if (name == "user") return llm::Role::kUser;
  throw std::runtime_error("unknown role '" + name + "'");
}

llm::Message MessageFrom(const json& j) {
  llm::Message m;
  m.role = RoleFrom(j.at("role").get<std::string>());
  m.content = j.at("content").get<std::string>();
  m.reasoning = j.value("reasoning", "");
  if (j.contains("tool_calls")) {
    for (const auto& c : j["tool_calls"]) m.tool_calls.push_back(ToolCallFrom(c));
  }
  m.tool_call_id = j.value("tool_call_id", "");
  m.name = j.value("name", "");
  return m;
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

llm::Usage UsageFrom(const json& j) {
  llm::Usage u;
  u.present = j.at("present").get<bool>();
  u.prompt_tokens = j.at("prompt_tokens").get<std::int64_t>();
  u.completion_tokens = j.at("completion_tokens").get<std::int64_t>();
  u.total_tokens = j.at("total_tokens").get<std::int64_t>();
  if (j.contains("cached_prompt_tokens")) u.cached_prompt_tokens = j["cached_prompt_tokens"].get<std::int64_t>();
  if (j.contains("reasoning_tokens")) u.reasoning_tokens = j["reasoning_tokens"].get<std::int64_t>();
  return u;
}

llm::ReasoningSource ReasoningFrom(const std::string& name) {
  for (auto s : {llm::ReasoningSource::kNone, llm::ReasoningSource::kReasoningField,
                 llm::ReasoningSource::kReasoningContentField, llm::ReasoningSource::kThinkTag}) {
    if (llm::ReasoningSourceName(s) == name) return s;
  }
  return llm::ReasoningSource::kNone;
}

llm::ToolIssue ToolIssueFrom(const std::string& name) {
  for (auto s :
       {llm::ToolIssue::kNone, llm::ToolIssue::kToolFormat, llm::ToolIssue::kToolArgs, llm::ToolIssue::kTooLarge}) {
    if (llm::ToolIssueName(s) == name) return s;
  }
  return llm::ToolIssue::kNone;
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

llm::ChatResponse ResponseFrom(const json& j) {
  llm::ChatResponse r;
  r.id = j.at("id").get<std::string>();
  r.model = j.at("model").get<std::string>();
  r.content = j.at("content").get<std::string>();
  r.content_was_null = j.at("content_was_null").get<bool>();
  r.reasoning = j.at("reasoning").get<std::string>();
  r.reasoning_source = ReasoningFrom(j.at("reasoning_source").get<std::string>());
  for (const auto& c : j.at("tool_calls")) r.tool_calls.push_back(ToolCallFrom(c));
  r.finish_reason = j.at("finish_reason").get<std::string>();
  r.usage = UsageFrom(j.at("usage"));
  r.endpoint = j.at("endpoint").get<std::string>();
  r.timings.attempts = j.at("attempts").get<int>();
  r.raw_body = j.at("raw_body").get<std::string>();
  r.tool_issue = ToolIssueFrom(j.at("tool_issue").get<std::string>());
  r.tool_issue_detail = j.at("tool_issue_detail").get<std::string>();
  return r;
}

}  // namespace

std::string ResponseToJson(const llm::ChatResponse& response) {
  return ResponseJson(response).dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<llm::ChatResponse> ResponseFromJson(const std::string& text) {
  SG_RETURN_IF_ERROR(CheckJsonDepth(text, "model response"));
  try {
    return ResponseFrom(json::parse(text));
  } catch (const std::exception& e) {
    return ParseError(std::string("invalid model response: ") + e.what());
  }
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

Result<Trajectory> TrajectoryFromJson(const std::string& text) {
  SG_RETURN_IF_ERROR(CheckJsonDepth(text, "trajectory file"));
  try {
    json j = json::parse(text);
    if (j.value("format", "") != "seragen-trajectory") return ParseError("not a seragen trajectory");
    if (j.value("version", 0) != kTrajectoryFormatVersion) {
      return ParseError("trajectory format version " + std::to_string(j.value("version", 0)) +
                        " is not supported (expected " + std::to_string(kTrajectoryFormatVersion) + ")");
    }
    Trajectory t;
    t.task_id = j.at("task_id").get<std::string>();
    t.rollout = j.at("rollout").get<int>();
    t.model = j.at("model").get<std::string>();
    t.prompts_hash = j.at("prompts_hash").get<std::string>();
    for (const auto& s : j.at("tools")) {
      t.tools.push_back(
          {s.at("name").get<std::string>(), s.at("description").get<std::string>(),
           s.at("parameters").is_string() ? s.at("parameters").get<std::string>() : s.at("parameters").dump()});
    }
    for (const auto& m : j.at("history")) t.history.push_back(MessageFrom(m));
    for (const auto& tj : j.at("turns")) {
      TurnRecord turn;
      turn.step = tj.at("step").get<int>();
      turn.accepted = tj.at("accepted").get<bool>();
      turn.llm_seconds = tj.at("llm_seconds").get<double>();
      turn.tool_seconds = tj.at("tool_seconds").get<double>();
      turn.format_error = tj.value("format_error", "");
      turn.format_error_message = tj.value("format_error_message", "");
      turn.failure = tj.value("failure", "");
      turn.failure_class = tj.value("failure_class", "");
      if (tj.contains("response")) turn.response = ResponseFrom(tj["response"]);
      turn.observation = tj.value("observation", "");
      turn.command_timed_out = tj.value("command_timed_out", false);
      if (tj.contains("command_exit_code") && tj["command_exit_code"].is_number_integer()) {
        turn.command_exit_code = tj["command_exit_code"].get<int>();
      }
      turn.replayed = tj.value("replayed", false);
      turn.replay_observation_differs = tj.value("replay_observation_differs", false);
      turn.replay_observation = tj.value("replay_observation", "");
      t.turns.push_back(std::move(turn));
    }
    auto status = ParseExitStatus(j.at("exit_status").get<std::string>());
    if (!status) return ParseError("unknown exit_status '" + j.at("exit_status").get<std::string>() + "'");
    t.exit_status = *status;
    t.exit_detail = j.at("exit_detail").get<std::string>();
    t.patch = j.at("patch").get<std::string>();
    if (auto b64 = j.find("patch_base64"); b64 != j.end()) {
      auto bytes = Base64Decode(b64->get<std::string>());
      if (!bytes) return ParseError("invalid trajectory: patch_base64 is not base64");
      t.patch = std::move(*bytes);
    }
    t.has_patch = j.at("has_patch").get<bool>();
    t.patch_error = j.value("patch_error", "");
    t.autosubmitted = j.value("autosubmitted", false);
    const json& tt = j.at("totals");
    t.totals.prompt_tokens = tt.at("prompt_tokens").get<std::int64_t>();
    t.totals.completion_tokens = tt.at("completion_tokens").get<std::int64_t>();
    t.totals.cached_prompt_tokens = tt.at("cached_prompt_tokens").get<std::int64_t>();
    t.totals.cost_usd = tt.at("cost_usd").get<double>();
    t.totals.model_calls = tt.at("model_calls").get<int>();
    t.totals.replayed_calls = tt.value("replayed_calls", 0);
    t.totals.steps = tt.at("steps").get<int>();
    t.totals.format_errors = tt.at("format_errors").get<int>();
    t.totals.wall_seconds = tt.at("wall_seconds").get<double>();
    t.totals.command_seconds = tt.value("command_seconds", 0.0);
    t.started_at = j.at("started_at").get<std::string>();
    t.finished_at = j.at("finished_at").get<std::string>();
    return t;
  } catch (const std::exception& e) {
    return ParseError(std::string("invalid trajectory: ") + e.what());
  }
}

}  // namespace seragen::agent
