#include "seragen/tools/bash_tool.h"

#include "seragen/base/utf8.h"

namespace seragen::tools {

BashTool::BashTool(sandbox::CommandRunner* runner, const ToolMessages* messages, ToolOptions options,
                   std::string editor_tool_name)
    : runner_(runner),
      messages_(messages),
      options_(std::move(options)),
      editor_tool_name_(std::move(editor_tool_name)) {}

Result<std::string> BashTool::Render(const sandbox::CommandResult& r) const {
  std::string out = r.output;
  if (r.truncated()) {
    SG_ASSIGN_OR_RETURN(std::string note,
                        messages_->Render("bash_truncated", {{"omitted_bytes", std::to_string(r.omitted_bytes)},
                                                             {"total_bytes", std::to_string(r.total_output_bytes)}}));
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += note + "\n" + r.output_tail;
  }
  std::vector<std::string> notes;
  if (r.timed_out) {
    const auto seconds = options_.bash_limits.timeout.count() / 1000.0;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", seconds);
    SG_ASSIGN_OR_RETURN(std::string note, messages_->Render("bash_timeout", {{"timeout_seconds", buf}}));
    notes.push_back(note);
  } else if (r.output_limit_killed) {
    SG_ASSIGN_OR_RETURN(std::string note,
                        messages_->Render("bash_output_killed",
                                          {{"limit_bytes", std::to_string(options_.bash_limits.output_kill_bytes)}}));
    notes.push_back(note);
  } else if (r.exit_code != 0) {
    SG_ASSIGN_OR_RETURN(std::string note,
                        messages_->Render("bash_exit_code", {{"exit_code", std::to_string(r.exit_code)}}));
    notes.push_back(note);
  }
  if (out.empty() && notes.empty()) {
    return messages_->Render("bash_no_output", {});
  }
  for (const auto& n : notes) {
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += n;
  }
  return out;
}

Status BashTool::AppendStateNotes(const sandbox::CommandResult& r, bool env_reset, std::string* observation) const {
  std::vector<std::string> notes;
  if (env_reset) {
    SG_ASSIGN_OR_RETURN(std::string note, messages_->Render("bash_env_reset", {}));
    notes.push_back(std::move(note));
  }
  if (r.final_state && !r.final_state->dropped_exports.empty()) {
    std::string names = r.final_state->dropped_exports;
    const bool all = names == "*";
    if (names.size() > 300) names = names.substr(0, names.rfind(' ', 300)) + " ...";
    TemplateValues values{{"max_vars", std::to_string(sandbox::kCarriedVarsMax)},
                          {"max_var_chars", std::to_string(sandbox::kCarriedVarMaxChars)},
                          {"max_total_chars", std::to_string(sandbox::kCarriedEnvMaxChars)}};
    if (!all) values["names"] = names;
    SG_ASSIGN_OR_RETURN(std::string note, messages_->Render(all ? "bash_env_dropped_all" : "bash_env_dropped", values));
    notes.push_back(std::move(note));
  }
  for (const auto& n : notes) {
    if (!observation->empty() && observation->back() != '\n') *observation += '\n';
    *observation += n;
  }
  return Status::Ok();
}

Result<BashOutcome> BashTool::Run(const std::string& command) {
  BashOutcome outcome;
  if (options_.max_consecutive_timeouts > 0 && consecutive_timeouts_ >= options_.max_consecutive_timeouts) {
    SG_ASSIGN_OR_RETURN(outcome.observation,
                        messages_->Render("bash_disabled", {{"count", std::to_string(consecutive_timeouts_)}}));
    outcome.stop_requested = true;
    return outcome;
  }
  if (command.find_first_not_of(" \t\r\n") == std::string::npos) {
    SG_ASSIGN_OR_RETURN(outcome.observation, messages_->Render("bash_empty_command", {}));
    return outcome;
  }
  if (std::size_t nul = command.find('\0'); nul != std::string::npos) {
    SG_ASSIGN_OR_RETURN(outcome.observation,
                        messages_->Render("bash_command_nul", {{"position", std::to_string(nul)}}));
    return outcome;
  }
  if (command.size() > sandbox::kMaxCommandBytes) {
    SG_ASSIGN_OR_RETURN(outcome.observation, messages_->Render("bash_command_too_long",
                                                               {{"length", std::to_string(command.size())},
                                                                {"limit", std::to_string(sandbox::kMaxCommandBytes)},
                                                                {"editor_tool", editor_tool_name_}}));
    return outcome;
  }
  sandbox::CommandRequest request(command);
  request.state = state_;
  request.capture_state = true;
  Result<sandbox::CommandResult> run = runner_->Run(request, options_.bash_limits);
  bool env_reset = false;
  if (!run.ok() && request.state && !request.state->exported_env.empty()) {
    // The variables the agent exported may be what kept the sandbox from
    // starting (nothing ran): retry once without them. If that works, the
    // failure was the agent's own and it sees a note, not an infrastructure
    // error.
    request.state->exported_env.clear();
    run = runner_->Run(request, options_.bash_limits);
    if (run.ok()) {
      env_reset = true;
      state_->exported_env.clear();
    }
  }
  SG_ASSIGN_OR_RETURN(sandbox::CommandResult result, std::move(run));
  if (result.final_state) state_ = result.final_state;
  outcome.ran = true;
  outcome.timed_out = result.timed_out;
  outcome.exit_code = result.exit_code;
  consecutive_timeouts_ = result.timed_out ? consecutive_timeouts_ + 1 : 0;
  SG_ASSIGN_OR_RETURN(outcome.observation, Render(result));
  SG_RETURN_IF_ERROR(AppendStateNotes(result, env_reset, &outcome.observation));
  if (options_.max_consecutive_timeouts > 0 && consecutive_timeouts_ >= options_.max_consecutive_timeouts) {
    SG_ASSIGN_OR_RETURN(std::string note,
                        messages_->Render("bash_timeout_limit", {{"count", std::to_string(consecutive_timeouts_)}}));
    outcome.observation += "\n" + note;
    outcome.stop_requested = true;
  }
  return outcome;
}

}  // namespace seragen::tools
