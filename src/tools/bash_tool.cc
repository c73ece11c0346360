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
    SG_ASSIGN_OR_RETURN(std::string note, messages_->Render("bash_output_killed",
                                                            {{"limit_bytes", std::to_string(options_.bash_limits.output_kill_bytes)}}));
    notes.push_back(note);
  } else if (r.exit_code != 0) {
    SG_ASSIGN_OR_RETURN(std::string note, messages_->Render("bash_exit_code", {{"exit_code", std::to_string(r.exit_code)}}));
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
  if (command.size() > sandbox::kMaxCommandBytes || command.find('\0') != std::string::npos) {
    SG_ASSIGN_OR_RETURN(outcome.observation,
                        messages_->Render("bash_command_too_long", {{"length", std::to_string(command.size())},
                                                                    {"limit", std::to_string(sandbox::kMaxCommandBytes)},
                                                                    {"editor_tool", editor_tool_name_}}));
    return outcome;
  }
  sandbox::CommandRequest request(command);
  request.state = state_;
  request.capture_state = true;
  SG_ASSIGN_OR_RETURN(sandbox::CommandResult result, runner_->Run(request, options_.bash_limits));
  if (result.final_state) state_ = result.final_state;
  outcome.ran = true;
  outcome.timed_out = result.timed_out;
  outcome.exit_code = result.exit_code;
  consecutive_timeouts_ = result.timed_out ? consecutive_timeouts_ + 1 : 0;
  SG_ASSIGN_OR_RETURN(outcome.observation, Render(result));
  if (options_.max_consecutive_timeouts > 0 && consecutive_timeouts_ >= options_.max_consecutive_timeouts) {
    SG_ASSIGN_OR_RETURN(std::string note,
                        messages_->Render("bash_timeout_limit", {{"count", std::to_string(consecutive_timeouts_)}}));
    outcome.observation += "\n" + note;
    outcome.stop_requested = true;
  }
  return outcome;
}

}  // namespace seragen::tools
