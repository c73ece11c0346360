#include "cli/model_setup.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

#include "cli/options_from_config.h"
#include "seragen/base/clock.h"
#include "seragen/http/curl_client.h"
#include "seragen/llm/commands.h"
#include "seragen/llm/startup_check.h"
#include "seragen/loop/event_loop.h"

namespace seragen::cli {
namespace {

double Seconds(config::Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

Result<std::string> CheckEndpointsAndModel(const config::Config& cfg, const log::Logger& logger) {
  llm::StartupCheckOptions options;
  for (std::size_t i = 0; i < cfg.llm.endpoints.size(); ++i) {
    const std::string setting = fmt::format("llm.endpoints[{}]", i);
    const bool own_key = !cfg.llm.endpoints[i].api_key.empty();
    options.endpoints.push_back({setting, own_key ? setting + ".api_key" : std::string("llm.api_key")});
  }
  options.model = cfg.llm.model;
  options.allow_unlisted_model = cfg.llm.allow_unlisted_model;
  options.wait = std::chrono::duration_cast<std::chrono::milliseconds>(cfg.llm.startup_wait_s);
  llm::StartupCheckDeps deps;
  deps.probe = [&cfg](std::size_t i) { return llm::ProbeEndpointModels(PingOptionsFrom(cfg, i)); };
  deps.clock = &SystemClock();
  deps.pause = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  return llm::CheckEndpointsAndChooseModel(options, deps, logger);
}

void ResolveServerProfiles(const config::LlmConfig& llm_cfg, const std::string& model,
                           const llm::RequestOverrides& overrides, std::vector<llm::EndpointOptions>& endpoints,
                           const log::Logger& logger) {
  loop::EventLoop probe_loop;
  http::CurlClient probe_client(probe_loop);
  for (llm::EndpointOptions& eo : endpoints) {
    llm::ServerKind kind = llm::ServerKind::kGeneric;
    std::string how = "configured (llm.server)";
    if (llm_cfg.server == "auto") {
      auto detected = llm::DetectServer(probe_client, eo, std::chrono::milliseconds(10000));
      if (detected.ok()) {
        kind = detected->kind;
        how = "detected: " + detected->evidence;
      } else {
        how = "not detected (" + detected.status().message() + "); set llm.server";
      }
    } else if (auto parsed = llm::ParseServerKind(llm_cfg.server); parsed.ok()) {
      kind = *parsed;
    }
    eo.wire = llm::ResolveWireOptions(kind, model, overrides);
    logger.Info("endpoint {}: server {} ({}); max tokens field {}, sampling {}, parallel_tool_calls {}, reasoning {}",
                eo.base_url, llm::ServerKindName(kind), how, llm::MaxTokensFieldName(eo.wire->max_tokens_field),
                eo.wire->send_sampling ? "sent" : "omitted", llm::ParallelToolCallsName(eo.wire->parallel_tool_calls),
                llm::ReasoningFieldName(eo.wire->reasoning_field));
  }
}

Status WaitForAnEndpoint(llm::HttpChatClient& chat, config::Duration wait, const log::Logger& logger) {
  const double wait_s = Seconds(wait);
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0;; ++round) {
    std::promise<std::vector<llm::EndpointState>> probed;
    chat.ProbeAll([&probed](std::vector<llm::EndpointState> states) { probed.set_value(std::move(states)); });
    std::vector<llm::EndpointState> states = probed.get_future().get();
    std::string silent;
    bool any = false;
    for (const llm::EndpointState& e : states) {
      if (e.ejected) silent += (silent.empty() ? "" : ", ") + e.base_url;
      any = any || !e.ejected;
    }
    if (any || states.empty()) {
      for (const llm::EndpointState& e : states) {
        if (e.ejected) {
          logger.Warn("endpoint {} did not answer its health probe; it will be probed again", e.base_url);
        } else {
          logger.Info("endpoint {} serves '{}' (context window {})", e.base_url, e.model_id,
                      e.context_window ? std::to_string(*e.context_window) : std::string("unknown"));
        }
      }
      return Status::Ok();
    }
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed >= wait) {
      return UnavailableError("no model endpoint answered its health probe within " + fmt::format("{:g}", wait_s) +
                              " s (llm.startup_wait_s): " + silent);
    }
    if (round == 0) {
      logger.Warn("no model endpoint answers yet ({}); waiting up to {:g} s (llm.startup_wait_s)", silent, wait_s);
    }
    auto pause = std::min<std::chrono::steady_clock::duration>(std::chrono::seconds(2), wait - elapsed);
    std::this_thread::sleep_for(pause);
  }
}

}  // namespace seragen::cli
