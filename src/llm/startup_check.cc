#include "seragen/llm/startup_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace seragen::llm {
namespace {

double Seconds(std::chrono::milliseconds d) { return std::chrono::duration<double>(d).count(); }

// What one round of probes found.
struct ModelsRound {
  std::vector<std::string> served;  // ids, in endpoint order, without repeats
  std::string silent;               // "detail, ..." of the endpoints that did not list models
  bool any = false;
};

// A refusal that waiting cannot fix, naming the setting to change.
Status Refused(const EndpointProbe& probe, const StartupEndpoint& endpoint) {
  const std::string key = probe.outcome == ProbeOutcome::kRefusedCredentials
                              ? endpoint.key_setting + " (the variable it names must hold a key the endpoint accepts)"
                              : endpoint.setting + ".base_url (the URL the OpenAI API is under, usually ending in /v1)";
  return InvalidArgumentError("the endpoint refused the start-up check: " + probe.detail + "; fix " + key);
}

Result<ModelsRound> ProbeOnce(const StartupCheckOptions& options, const StartupCheckDeps& deps) {
  ModelsRound round;
  for (std::size_t i = 0; i < options.endpoints.size(); ++i) {
    EndpointProbe probe = deps.probe(i);
    if (probe.outcome == ProbeOutcome::kRefusedCredentials || probe.outcome == ProbeOutcome::kRefusedAddress) {
      return Refused(probe, options.endpoints[i]);
    }
    if (probe.outcome == ProbeOutcome::kNotYet) {
      round.silent += (round.silent.empty() ? "" : ", ") + probe.detail;
      continue;
    }
    round.any = true;
    for (std::string& id : probe.model_ids) {
      if (std::find(round.served.begin(), round.served.end(), id) == round.served.end()) {
        round.served.push_back(std::move(id));
      }
    }
  }
  return round;
}

Result<std::string> Choose(const StartupCheckOptions& options, const std::vector<std::string>& served,
                           const log::Logger& logger) {
  const ModelChoice choice = ChooseModel(options.model, served);
  if (choice.listed) return choice.model;
  const std::string listed = fmt::format("{}", fmt::join(served, ", "));
  if (options.allow_unlisted_model) {
    logger.Warn("llm.model '{}' is not among the served ids ({}); sending it anyway (llm.allow_unlisted_model)",
                choice.model, listed);
    return choice.model;
  }
  return InvalidArgumentError("llm.model '" + choice.model +
                              "' is not served by the endpoint(s); they list: " + listed +
                              ". Set llm.model to one of them, or llm.allow_unlisted_model: true when a gateway "
                              "routes names it does not list");
}

// Each endpoint's state once one answers its health probe.
void LogEndpointStates(const std::vector<EndpointState>& states, const log::Logger& logger) {
  for (const EndpointState& e : states) {
    if (e.ejected) {
      logger.Warn("endpoint {} did not answer its health probe; it will be probed again", e.base_url);
    } else {
      logger.Info("endpoint {} serves '{}' (context window {})", e.base_url, e.model_id,
                  e.context_window ? std::to_string(*e.context_window) : std::string("unknown"));
    }
  }
}

}  // namespace

ModelChoice ChooseModel(const std::string& configured, const std::vector<std::string>& served) {
  if (configured.empty()) return {served.empty() ? std::string() : served.front(), !served.empty()};
  return {configured, std::find(served.begin(), served.end(), configured) != served.end()};
}

Result<std::string> CheckEndpointsAndChooseModel(const StartupCheckOptions& options, const StartupCheckDeps& deps,
                                                 const log::Logger& logger) {
  const Clock::SteadyTime wait_until = deps.clock->Now() + options.wait;
  SG_ASSIGN_OR_RETURN(ModelsRound round, ProbeOnce(options, deps));
  for (bool warned = false; (!round.any || round.served.empty()) && deps.clock->Now() < wait_until;) {
    if (!warned) {
      logger.Warn("no endpoint lists a model yet ({}); waiting up to {:g} s (llm.startup_wait_s)", round.silent,
                  Seconds(options.wait));
      warned = true;
    }
    deps.pause(options.retry_every);
    SG_ASSIGN_OR_RETURN(round, ProbeOnce(options, deps));
  }
  if (!round.any || round.served.empty()) {
    return UnavailableError(
        "no model endpoint listed a model within " + fmt::format("{:g}", Seconds(options.wait)) +
        " s (llm.startup_wait_s): " + (round.silent.empty() ? std::string("empty list") : round.silent));
  }
  return Choose(options, round.served, logger);
}

Status WaitForAnEndpoint(std::chrono::milliseconds wait, const EndpointWaitDeps& deps, const log::Logger& logger,
                         std::chrono::milliseconds retry_every) {
  const Clock::SteadyTime start = deps.clock->Now();
  for (int round = 0;; ++round) {
    const std::vector<EndpointState> states = deps.probe_all();
    std::string silent;
    bool any = false;
    for (const EndpointState& e : states) {
      if (e.ejected) silent += (silent.empty() ? "" : ", ") + e.base_url;
      any = any || !e.ejected;
    }
    if (any || states.empty()) {
      LogEndpointStates(states, logger);
      return Status::Ok();
    }
    const auto elapsed = deps.clock->Now() - start;
    if (elapsed >= wait) {
      return UnavailableError("no model endpoint answered its health probe within " +
                              fmt::format("{:g}", Seconds(wait)) + " s (llm.startup_wait_s): " + silent);
    }
    if (round == 0) {
      logger.Warn("no model endpoint answers yet ({}); waiting up to {:g} s (llm.startup_wait_s)", silent,
                  Seconds(wait));
    }
    deps.pause(std::min(retry_every, std::chrono::ceil<std::chrono::milliseconds>(wait - elapsed)));
  }
}

}  // namespace seragen::llm
