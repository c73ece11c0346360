// llm start-up policy: the check of the endpoints before a run, the one
// rule that chooses the model to send, and the wait for an endpoint to pass
// its health probe. The probes, the clock and the pause between rounds are
// injected, so the policy runs in unit tests against fakes; `cli` wires the
// real probes (ProbeEndpointModels, HttpChatClient::ProbeAll).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "seragen/base/clock.h"
#include "seragen/base/log.h"
#include "seragen/base/result.h"
#include "seragen/llm/endpoint_pool.h"

namespace seragen::llm {

// What one endpoint's GET /models came to, decided from the typed failure
// class and the HTTP status, never from message text.
enum class ProbeOutcome {
  kListed,              // answered with a model list
  kNotYet,              // no answer waiting may fix yet (refused connection, 503, timeout, ...)
  kRefusedCredentials,  // a configuration failure with 401/403: the key is missing or wrong
  kRefusedAddress,      // another configuration failure: 404, a body that is not a model list
};

struct EndpointProbe {
  ProbeOutcome outcome = ProbeOutcome::kNotYet;
  std::vector<std::string> model_ids;  // kListed: the ids, in the endpoint's order
  // Otherwise why, for people: "GET URL/models: HTTP 401: ..." (no failure
  // tag, no chat-request hint).
  std::string detail;
};

// The model a run (or `llm ping`) sends: `configured`, or the first served id
// when it is empty; `listed` says whether an endpoint lists it.
struct ModelChoice {
  std::string model;
  bool listed = false;
};
ModelChoice ChooseModel(const std::string& configured, const std::vector<std::string>& served);

// The settings the check names in its messages, per endpoint.
struct StartupEndpoint {
  std::string setting;      // e.g. "llm.endpoints[0]"
  std::string key_setting;  // the setting whose variable holds its key: "llm.api_key" or SETTING.api_key
};

struct StartupCheckOptions {
  std::vector<StartupEndpoint> endpoints;
  std::string model;                  // llm.model; empty: the first listed
  bool allow_unlisted_model = false;  // llm.allow_unlisted_model
  std::chrono::milliseconds wait{0};  // llm.startup_wait_s
  std::chrono::milliseconds retry_every{2000};
};

struct StartupCheckDeps {
  std::function<EndpointProbe(std::size_t endpoint)> probe;  // GET /models on endpoint i
  const Clock* clock = nullptr;
  std::function<void(std::chrono::milliseconds)> pause;  // sleeps (the fake advances a FakeClock)
};

// GET /models on every endpoint, again every retry_every for up to `wait`
// while none lists a model. InvalidArgument at once when an endpoint refuses
// (kRefusedCredentials names its key setting, kRefusedAddress its base_url),
// and when the chosen model is not listed and not allowed, listing the
// served ids. Unavailable when none listed a model in time. Logs the wait
// and a model sent unlisted.
Result<std::string> CheckEndpointsAndChooseModel(const StartupCheckOptions& options, const StartupCheckDeps& deps,
                                                 const log::Logger& logger);

struct EndpointWaitDeps {
  // One round of health probes of every endpoint, waited for
  // (HttpChatClient::ProbeAll); an ejected state did not answer.
  std::function<std::vector<EndpointState>()> probe_all;
  const Clock* clock = nullptr;
  std::function<void(std::chrono::milliseconds)> pause;  // sleeps (the fake advances a FakeClock)
};

// Probes every endpoint until at least one answers, again every
// `retry_every` for up to `wait` (llm.startup_wait_s; 0: one round). Logs
// each endpoint's state once one answers (no endpoints: OK at once), and the
// wait once. Unavailable naming the silent endpoints when none did in time.
Status WaitForAnEndpoint(std::chrono::milliseconds wait, const EndpointWaitDeps& deps, const log::Logger& logger,
                         std::chrono::milliseconds retry_every = std::chrono::seconds(2));

}  // namespace seragen::llm
