// Start-of-run steps that talk to the model endpoints: which model, which
// server profile per endpoint, and waiting for one endpoint to answer.
// Blocking HTTP; call from the main thread before the pipeline starts.
#pragma once

#include <string>
#include <vector>

#include "seragen/base/log.h"
#include "seragen/base/result.h"
#include "seragen/config/config.h"
#include "seragen/llm/endpoint_options.h"
#include "seragen/llm/http_chat_client.h"
#include "seragen/llm/server_profile.h"

namespace seragen::cli {

// The start-up check of the endpoints and the model to send. GET /models on
// every endpoint, again every 2 s for up to llm.startup_wait_s while none
// lists a model (503, refused connection: a server still loading).
// InvalidArgument at once when an endpoint refuses with a configuration error
// (401, 403, 404, a body that is not a model list), naming the URL, the status
// and the key to fix; and when llm.model is not among the listed ids (unless
// llm.allow_unlisted_model), listing them. Empty llm.model: the first listed.
// Unavailable when none answered in time.
Result<std::string> CheckEndpointsAndModel(const config::Config& cfg, const log::Logger& logger);

// llm::ResolveServerProfiles with llm.server, detecting over a CURL client of
// its own (10 s per endpoint).
void ResolveServerProfiles(const config::LlmConfig& llm_cfg, const std::string& model,
                           const llm::RequestOverrides& overrides, std::vector<llm::EndpointOptions>& endpoints,
                           const log::Logger& logger);

// llm::WaitForAnEndpoint over `chat`'s health probes, the system clock and
// real sleeps; `wait` is llm.startup_wait_s.
Status WaitForAnEndpoint(llm::HttpChatClient& chat, config::Duration wait, const log::Logger& logger);

}  // namespace seragen::cli
