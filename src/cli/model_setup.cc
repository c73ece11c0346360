#include "cli/model_setup.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

#include "cli/options_from_config.h"
#include "seragen/http/curl_client.h"
#include "seragen/llm/commands.h"
#include "seragen/llm/failure.h"
#include "seragen/loop/event_loop.h"
#include "seragen/pipeline/shard_run.h"

namespace seragen::cli {
namespace {

double Seconds(config::Duration d) { return std::chrono::duration<double>(d).count(); }

// What one round of /models probes found.
struct ModelsRound {
  std::vector<std::string> served;  // ids, in endpoint order, without repeats
  std::string silent;               // "URL (why), ..." of the endpoints that did not answer
  bool any = false;
};

// The "[request field: ...; fix: ...]" the classifier adds is about chat
// requests; the start-up check names its own key.
std::string WithoutChatHint(std::string message) {
  std::size_t hint = message.find(" [request field: ");
  if (hint != std::string::npos) message.erase(hint);
  return pipeline::StripFailureTag(message);
}

// A refusal of GET /models that waiting cannot fix: InvalidArgument naming
// the URL, the status and the key; OK for "not up yet" (503, refused, ...).
Status RefusedAtStart(const Status& failure, const config::Config& cfg, std::size_t i) {
  if (llm::FailureClassOf(failure) != llm::FailureClass::kConfig) return Status::Ok();
  const std::string endpoint = fmt::format("llm.endpoints[{}]", i);
  const std::string& msg = failure.message();
  std::string key = endpoint + ".base_url (the URL the OpenAI API is under, usually ending in /v1)";
  if (msg.find("HTTP 401") != std::string::npos || msg.find("HTTP 403") != std::string::npos) {
    bool own = !cfg.llm.endpoints[i].api_key.empty();
    key = (own ? endpoint + ".api_key" : std::string("llm.api_key")) + " (the variable it names must hold a key " +
          "the endpoint accepts)";
  }
  return InvalidArgumentError("the endpoint refused the start-up check: " + WithoutChatHint(msg) + "; fix " + key);
}

// One GET /models per endpoint. InvalidArgument at the first refusal that is
// a configuration error.
Result<ModelsRound> ProbeModelsOnce(const config::Config& cfg) {
  ModelsRound round;
  for (std::size_t i = 0; i < cfg.llm.endpoints.size(); ++i) {
    auto report = llm::ProbeModels(PingOptionsFrom(cfg, i));
    if (!report.ok()) {
      SG_RETURN_IF_ERROR(RefusedAtStart(report.status(), cfg, i));
      round.silent += (round.silent.empty() ? "" : ", ") + WithoutChatHint(report.status().message());
      continue;
    }
    round.any = true;
    for (const llm::ModelInfo& m : report->models.models) {
      if (std::find(round.served.begin(), round.served.end(), m.id) == round.served.end()) {
        round.served.push_back(m.id);
      }
    }
  }
  return round;
}

// The model to send: llm.model when an endpoint lists it (or when
// llm.allow_unlisted_model), else the first listed when llm.model is empty.
Result<std::string> PickModel(const config::Config& cfg, const std::vector<std::string>& served,
                              const log::Logger& logger) {
  if (cfg.llm.model.empty()) return served.front();
  if (std::find(served.begin(), served.end(), cfg.llm.model) != served.end()) return cfg.llm.model;
  const std::string listed = fmt::format("{}", fmt::join(served, ", "));
  if (cfg.llm.allow_unlisted_model) {
    logger.Warn("llm.model '{}' is not among the served ids ({}); sending it anyway (llm.allow_unlisted_model)",
                cfg.llm.model, listed);
    return cfg.llm.model;
  }
  return InvalidArgumentError("llm.model '" + cfg.llm.model +
                              "' is not served by the endpoint(s); they list: " + listed +
                              ". Set llm.model to one of them, or llm.allow_unlisted_model: true when a gateway "
                              "routes names it does not list");
}

}  // namespace

Result<std::string> CheckEndpointsAndModel(const config::Config& cfg, const log::Logger& logger) {
  const auto wait_until = std::chrono::steady_clock::now() + cfg.llm.startup_wait_s;
  SG_ASSIGN_OR_RETURN(ModelsRound round, ProbeModelsOnce(cfg));
  for (bool warned = false; (!round.any || round.served.empty()) && std::chrono::steady_clock::now() < wait_until;) {
    if (!warned) {
      logger.Warn("no endpoint lists a model yet ({}); waiting up to {:g} s (llm.startup_wait_s)", round.silent,
                  Seconds(cfg.llm.startup_wait_s));
      warned = true;
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));
    SG_ASSIGN_OR_RETURN(round, ProbeModelsOnce(cfg));
  }
  if (!round.any || round.served.empty()) {
    return UnavailableError(
        "no model endpoint listed a model within " + fmt::format("{:g}", Seconds(cfg.llm.startup_wait_s)) +
        " s (llm.startup_wait_s): " + (round.silent.empty() ? std::string("empty list") : round.silent));
  }
  return PickModel(cfg, round.served, logger);
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
