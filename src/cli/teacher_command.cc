#include "cli/teacher_command.h"

#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "seragen/config/data_dir.h"
#include "seragen/teacher/options.h"
#include "seragen/teacher/run_command.h"
#include "seragen/teacher/settings.h"

namespace seragen::cli {
namespace {

// Command-line flags of `seragen teacher`; empty / negative = not given.
struct TeacherArgs {
  std::string config, latency, faults, reasoning, bind, prompts, request_log, script, body_log, validate, model_id,
      api_key_env;
  bool no_jinja = false;
  int port = -1, threads = 0, give_up_after = -1;
  long long seed = -1, context_window = 0;
};

void AddTeacherFlags(CLI::App* cmd, TeacherArgs* a) {
  cmd->add_option("--config", a->config, "Teacher settings file (default: configs/teacher.yaml shipped with seragen)");
  cmd->add_option("--port", a->port, "TCP port (0 = pick a free one)");
  cmd->add_option("--bind", a->bind, "Address to listen on (default 127.0.0.1)");
  cmd->add_option("--seed", a->seed, "Policy seed");
  cmd->add_option("--latency", a->latency,
                  "zero | fixed:MS | uniform:MIN-MAX | exp:MEAN[,tail=RATExMULT][,first=FRACTION]");
  cmd->add_option("--faults", a->faults,
                  "Comma-separated NAME=RATE: 500, 502, 503, 429, reset, hang, truncate, midstream");
  cmd->add_option("--reasoning", a->reasoning, "none | reasoning | reasoning_content | think");
  cmd->add_option("--context-window", a->context_window, "Tokens; longer prompts get a context-overflow 400");
  cmd->add_option("--threads", a->threads, "Server threads");
  cmd->add_option("--prompts", a->prompts, "Prompt directory the teacher recognises requests by");
  cmd->add_option("--request-log", a->request_log, "Append one JSON line per request to this file");
  cmd->add_option("--script", a->script,
                  "Replay the assistant turns listed in this YAML/JSON file (per request kind) instead of the "
                  "rule-based policy; see docs/TEACHER.md");
  cmd->add_option("--body-log", a->body_log, "Append every chat request body (one per line) to this file");
  cmd->add_option(
      "--validate", a->validate,
      "Refuse requests exactly as this server would (status, error body, message): vllm | sglang | llamacpp | openai");
  cmd->add_flag("--no-jinja", a->no_jinja, "With --validate llamacpp: act like llama-server started without --jinja");
  cmd->add_option("--model-id", a->model_id, "Model id to serve (e.g. o3-mini to act as an OpenAI reasoning model)");
  cmd->add_option("--give-up-after", a->give_up_after,
                  "A weaker stand-in for evaluation tests: rollout 2 submits what it has after this many turns "
                  "(0 = never)")
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--api-key-env", a->api_key_env,
                  "Answer 401 to /v1/ requests without 'Authorization: Bearer' and the value of this variable");
}

void ApplyPlainFlags(const TeacherArgs& a, teacher::TeacherOptions* o) {
  if (a.port >= 0) o->port = a.port;
  if (!a.bind.empty()) o->bind_address = a.bind;
  if (a.seed >= 0) o->seed = static_cast<std::uint64_t>(a.seed);
  if (a.threads > 0) o->threads = a.threads;
  if (a.give_up_after >= 0) o->knobs.rollout2_give_up_after_turns = a.give_up_after;
  if (a.context_window > 0) o->context_window = static_cast<int>(a.context_window);
  if (!a.prompts.empty()) o->prompts_dir = a.prompts;
  if (!a.request_log.empty()) o->request_log_path = a.request_log;
  if (!a.script.empty()) o->script_path = a.script;
  if (!a.body_log.empty()) o->body_log_path = a.body_log;
  if (!a.model_id.empty()) o->model_id = a.model_id;
  o->jinja = !a.no_jinja;
}

template <typename T>
Result<T> NamingFlag(const char* flag, Result<T> parsed) {
  if (!parsed.ok()) return parsed.status().WithContext(flag);
  return parsed;
}

// The flags that need parsing; the message names the flag.
Status ApplyParsedFlags(const TeacherArgs& a, teacher::TeacherOptions* o) {
  if (!a.validate.empty()) {
    SG_ASSIGN_OR_RETURN(o->strict, teacher::ParseStrictMode(a.validate));
  }
  if (a.no_jinja && o->strict != teacher::StrictMode::kLlamaCpp) {
    return InvalidArgumentError("--no-jinja needs --validate llamacpp");
  }
  if (!a.latency.empty()) {
    SG_ASSIGN_OR_RETURN(o->latency, NamingFlag("--latency", teacher::ParseLatencySpec(a.latency)));
  }
  if (!a.faults.empty()) {
    SG_ASSIGN_OR_RETURN(o->faults, NamingFlag("--faults", teacher::ParseFaultSpec(a.faults)));
  }
  if (!a.api_key_env.empty()) {
    const char* key = std::getenv(a.api_key_env.c_str());
    if (key == nullptr || *key == '\0') return InvalidArgumentError("--api-key-env: " + a.api_key_env + " is not set");
    o->api_key = key;
  }
  if (!a.reasoning.empty()) {
    auto mode = teacher::ParseReasoningMode(a.reasoning);
    if (!mode.ok()) return InvalidArgumentError("--reasoning: expected none, reasoning, reasoning_content or think");
    o->knobs.reasoning = *mode;
  }
  return Status::Ok();
}

// Settings file, then flags, then validation.
Result<teacher::TeacherOptions> TeacherOptionsFrom(const TeacherArgs& a) {
  teacher::TeacherOptions o;
  std::string file = a.config.empty() ? config::DataDir() + "/configs/teacher.yaml" : a.config;
  SG_ASSIGN_OR_RETURN(teacher::TeacherSettings settings, teacher::LoadTeacherSettingsFile(file));
  SG_RETURN_IF_ERROR(teacher::ApplyTeacherSettings(settings, file, &o));
  if (o.prompts_dir.empty()) o.prompts_dir = config::DataDir() + "/prompts";
  ApplyPlainFlags(a, &o);
  SG_RETURN_IF_ERROR(ApplyParsedFlags(a, &o));
  SG_RETURN_IF_ERROR(teacher::ValidateOptions(o));
  return o;
}

}  // namespace

void AddTeacherCommand(CLI::App& app, std::function<int()>* action) {
  auto a = std::make_shared<TeacherArgs>();
  CLI::App* cmd = app.add_subcommand(
      "teacher",
      "Serve the built-in scripted teacher: an OpenAI-compatible endpoint whose answers come from a "
      "deterministic rule-based policy. It is a stand-in for a model, for demos, tests and load tests; "
      "its output is not real training data.");
  AddTeacherFlags(cmd, a.get());
  cmd->callback([a, action] {
    *action = [a] {
      auto options = TeacherOptionsFrom(*a);
      if (!options.ok()) {
        std::cerr << "seragen teacher: " << options.status().message() << "\n";
        return kExitUsage;
      }
      return teacher::RunTeacherCommand(*options);
    };
  });
}

}  // namespace seragen::cli
