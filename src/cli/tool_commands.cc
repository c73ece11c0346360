#include "cli/tool_commands.h"

#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "cli/options_from_config.h"
#include "seragen/base/file_util.h"
#include "seragen/base/terminal_text.h"
#include "seragen/config/data_dir.h"
#include "seragen/config/loader.h"
#include "seragen/config/shipped_data.h"
#include "seragen/llm/commands.h"
#include "seragen/llm/failure.h"
#include "seragen/tools/tool_spec.h"
#include "seragen/verify/verify_command.h"

namespace seragen::cli {

void AddVerifyCommand(CLI::App& app, std::function<int()>* action) {
  auto opts = std::make_shared<verify::VerifyCommandOptions>();
  auto rule = std::make_shared<std::string>("sera");
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Soft-verification scores of two patches: recall of P1's changed lines in P2 (the acceptance rule), "
      "precision and F1. Exit 0 accepted, 1 not accepted or not scorable, 2 error.");
  cmd->add_option("p1", opts->p1_path, "Rollout-1 patch (the reference)")->required();
  cmd->add_option("p2", opts->p2_path, "Rollout-2 patch")->required();
  cmd->add_option("-t,--threshold", opts->threshold, "Accept when recall >= this (0..1)")->capture_default_str();
  cmd->add_flag("--json", opts->json, "Print one JSON object");
  cmd->add_option("--rule", *rule,
                  "Changed-line rule: sera (SERA's line rule, as verify.rule's default) or structural "
                  "(hunk-aware); see docs/VERIFY.md")
      ->check(CLI::IsMember({"sera", "structural"}))
      ->capture_default_str();
  cmd->callback([opts, rule, action] {
    *action = [opts, rule] {
      opts->rule = verify::VerifyRuleFromName(*rule).value_or(verify::VerifyRule::kSera);
      auto out = verify::RunVerifyCommand(*opts);
      if (!out.ok()) {
        std::cerr << "seragen verify: " << out.status().message() << "\n";
        return kExitUsage;
      }
      std::cout << out->text;
      return out->accepted ? kExitOk : kExitRuntimeFailure;
    };
  });
}

namespace {

struct PingArgs {
  llm::PingOptions options;
  std::string config;
  double timeout_s = 10;
  bool no_tool_check = false;
};

// Fills `o` from the run config: what --flags left unset, and the tool check's tools.
Status PingOptionsFromConfig(const std::string& path, llm::PingOptions& o, std::string& tools_file,
                             std::string& prompts_dir) {
  auto loaded = config::LoadConfigFile(path);
  if (!loaded.ok()) return InvalidArgumentError("invalid configuration (" + path + "):\n" + loaded.status().message());
  const config::Config& cfg = loaded->config;
  llm::PingOptions from = PingOptionsFrom(cfg);
  if (o.base_url.empty()) o.base_url = from.base_url;
  if (o.api_key_env.empty()) o.api_key_env = from.api_key_env;
  o.headers.insert(o.headers.end(), from.headers.begin(), from.headers.end());
  if (o.server == "auto") o.server = cfg.llm.server;
  if (o.model.empty()) o.model = cfg.llm.model;
  o.allow_unlisted_model = cfg.llm.allow_unlisted_model;
  SG_ASSIGN_OR_RETURN(o.overrides, RequestOverridesOf(cfg.llm));
  if (!cfg.tools.file.empty()) tools_file = cfg.tools.file;
  if (!cfg.prompts.dir.empty()) prompts_dir = cfg.prompts.dir;
  return Status::Ok();
}

// The run's tools and PROMPTS/ping_tool_check.md, for the tool-call check.
Status LoadToolCheck(const std::string& tools_file, const std::string& prompts_dir, llm::PingOptions& o) {
  SG_ASSIGN_OR_RETURN(tools::ToolSpecs specs, tools::LoadToolSpecs(tools_file));
  for (const auto& t : specs.tools) o.tool_check_tools.push_back({t.name, t.description, t.parameters_schema_json});
  // A prompts.dir of its own may predate the check: the shipped text then.
  auto prompt = ReadFile(prompts_dir + "/ping_tool_check.md");
  if (!prompt.ok()) prompt = ReadFile(config::ShippedPath(config::Shipped::kPingToolCheck));
  if (!prompt.ok()) return prompt.status();
  o.tool_check_prompt = std::move(*prompt);
  return Status::Ok();
}

int PingFailed(const Status& s, int code) {
  std::cerr << "seragen llm ping: " << s.message() << "\n";
  return code;
}

// Exit 0: listed model and working tool calls; 2: configuration (a refused
// /models, an unlisted model); 1: the endpoint or the tool check failed.
int PingCommand(PingArgs& a) {
  llm::PingOptions& o = a.options;
  o.timeout = std::chrono::milliseconds(static_cast<long long>(a.timeout_s * 1000));
  std::string tools_file = config::ShippedPath(config::Shipped::kTools);
  std::string prompts_dir = config::ShippedPath(config::Shipped::kPrompts);
  if (!a.config.empty()) {
    if (Status s = PingOptionsFromConfig(a.config, o, tools_file, prompts_dir); !s.ok())
      return PingFailed(s, kExitUsage);
  }
  if (o.base_url.empty()) return PingFailed(InvalidArgumentError("give --base-url or -c CONFIG"), kExitUsage);
  if (!a.no_tool_check) {
    if (Status s = LoadToolCheck(tools_file, prompts_dir, o); !s.ok()) return PingFailed(s, kExitUsage);
  }
  auto report = llm::PingEndpoint(o);
  if (!report.ok()) {
    bool config = llm::FailureClassOf(report.status()) == llm::FailureClass::kConfig;
    std::cerr << "seragen llm ping: " << report.status().ToString() << "\n";
    return config ? kExitUsage : kExitRuntimeFailure;
  }
  const std::string text = llm::FormatPingReport(*report);  // the endpoint's words: escaped
  std::cout << TerminalSafe(text, text.size());
  if (!report->model_listed && !o.allow_unlisted_model) return kExitUsage;
  return report->tool_check.ran && !report->tool_check.works ? kExitRuntimeFailure : kExitOk;
}

}  // namespace

void AddLlmCommand(CLI::App& app, std::function<int()>* action) {
  CLI::App* cmd = app.add_subcommand("llm", "Check an OpenAI-compatible endpoint");
  cmd->require_subcommand(1);

  auto ping = std::make_shared<PingArgs>();
  CLI::App* p = cmd->add_subcommand("ping",
                                    "List the endpoint's models, context window and latency; detect the server and "
                                    "show the request settings a run would use; check that the model is listed "
                                    "and that tool calling works (one small request)");
  p->add_option("--base-url", ping->options.base_url,
                "e.g. http://127.0.0.1:8000/v1 (default: the config's first endpoint)");
  p->add_option("-c,--config", ping->config,
                "Run config: endpoint, key, headers, llm.server, llm.model, llm.allow_unlisted_model, tools and "
                "explicit request settings come from it");
  p->add_option("--api-key-env", ping->options.api_key_env, "Name of the environment variable holding the API key");
  p->add_option("--timeout", ping->timeout_s, "Seconds")->capture_default_str();
  p->add_option("--server", ping->options.server, "Server profile (llm.server): auto detects")
      ->check(CLI::IsMember({"auto", "vllm", "sglang", "llamacpp", "openai", "openrouter", "generic"}))
      ->capture_default_str();
  p->add_option("--model", ping->options.model,
                "Model id to check and show the settings for (default: llm.model, else the first listed)");
  p->add_flag("--no-tool-check", ping->no_tool_check, "Do not send the tool-call request");
  p->callback([ping, action] { *action = [ping] { return PingCommand(*ping); }; });

  auto chat = std::make_shared<llm::ChatCommandOptions>();
  auto chat_timeout = std::make_shared<double>(120);
  CLI::App* c = cmd->add_subcommand("chat", "Send one prompt and print the answer, reasoning, tool calls and usage");
  c->add_option("--base-url", chat->base_url, "e.g. http://127.0.0.1:8000/v1")->required();
  c->add_option("--prompt", chat->prompt, "The user message")->required();
  c->add_option("--model", chat->model, "Model id (default: the first the endpoint lists)");
  c->add_option("--system", chat->system_prompt, "Optional system message");
  c->add_option("--api-key-env", chat->api_key_env, "Name of the environment variable holding the API key");
  c->add_option("--max-tokens", chat->max_tokens, "Completion tokens")->capture_default_str();
  c->add_flag("--stream", chat->stream, "Use SSE streaming");
  c->add_option("--server", chat->server, "Server profile (llm.server): auto detects")
      ->check(CLI::IsMember({"auto", "vllm", "sglang", "llamacpp", "openai", "openrouter", "generic"}))
      ->capture_default_str();
  c->add_option("--timeout", *chat_timeout, "Seconds")->capture_default_str();
  c->callback([chat, chat_timeout, action] {
    *action = [chat, chat_timeout] {
      chat->timeout = std::chrono::milliseconds(static_cast<long long>(*chat_timeout * 1000));
      auto report = llm::RunChatCommand(*chat);
      if (!report.ok()) {
        std::cerr << "seragen llm chat: " << report.status().ToString() << "\n";
        return kExitRuntimeFailure;
      }
      const std::string text = llm::FormatChatReport(*report);  // the model's words: escaped
      std::cout << TerminalSafe(text, text.size());
      return kExitOk;
    };
  });
}

}  // namespace seragen::cli
