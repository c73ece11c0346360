#include "cli/model_setup.h"

#include <fmt/format.h>

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

constexpr std::chrono::milliseconds kDetectTimeout{10000};

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
  const llm::DetectFn detect = [&probe_client](const llm::EndpointOptions& eo) {
    return llm::DetectServer(probe_client, eo, kDetectTimeout);
  };
  llm::ResolveServerProfiles(llm_cfg.server, model, overrides, detect, endpoints, logger);
}

Status WaitForAnEndpoint(llm::HttpChatClient& chat, config::Duration wait, const log::Logger& logger) {
  llm::EndpointWaitDeps deps;
  deps.probe_all = [&chat] {
    std::promise<std::vector<llm::EndpointState>> probed;
    chat.ProbeAll([&probed](std::vector<llm::EndpointState> states) { probed.set_value(std::move(states)); });
    return probed.get_future().get();
  };
  deps.clock = &SystemClock();
  deps.pause = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  return llm::WaitForAnEndpoint(wait, deps, logger);
}

}  // namespace seragen::cli
