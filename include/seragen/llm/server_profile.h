// Server profiles: what each kind of OpenAI-compatible server accepts, as
// request-encoding defaults (WireOptions), and how to tell the kinds apart
// from the outside (no generation needed).
//
// Pure functions except DetectServer, which does blocking HTTP through the
// given client (call it off that client's event-loop thread), and
// ResolveServerProfiles, which detects through the function it is given.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/log.h"
#include "seragen/base/result.h"
#include "seragen/http/http_client.h"
#include "seragen/llm/endpoint_options.h"
#include "seragen/llm/wire_codec.h"

namespace seragen::llm {

enum class ServerKind { kGeneric, kVllm, kSglang, kLlamaCpp, kOpenAI, kOpenRouter };

// generic | vllm | sglang | llamacpp | openai | openrouter
std::string_view ServerKindName(ServerKind kind);
// The names above; "auto" is not a kind (the caller detects instead).
Result<ServerKind> ParseServerKind(std::string_view name);

// OpenAI model ids that only take default sampling and max_completion_tokens
// (o1, o3, o4 families and gpt-5*), with or without an "openai/" prefix.
bool IsOpenAiReasoningModel(std::string_view model_id);

// Settings the user wrote explicitly; unset members take the profile default.
struct RequestOverrides {
  std::optional<WireOptions::MaxTokensField> max_tokens_field;
  std::optional<bool> send_sampling;
  std::optional<WireOptions::ParallelToolCalls> parallel_tool_calls;
  std::optional<WireOptions::ReasoningField> reasoning_field;
};

// The request settings a server kind accepts for `model_id`.
WireOptions ProfileDefaults(ServerKind kind, std::string_view model_id);
// Profile defaults with every explicit override applied (overrides win).
WireOptions ResolveWireOptions(ServerKind kind, std::string_view model_id, const RequestOverrides& overrides);
// One line per setting ("max tokens field   max_completion_tokens"), for
// `seragen llm ping` and the run log.
std::string DescribeWireOptions(const WireOptions& options);

// What a look at the endpoint showed (inputs of DetectFromFacts).
struct DetectionFacts {
  std::string host;               // host of the base URL, lower case
  std::string server_header;      // "Server" header of GET {base}/models
  std::string owned_by;           // first model's owned_by
  bool openrouter_shape = false;  // /models entries carry context_length
  bool props_ok = false;          // GET {root}/props answered 200 with build_info
  bool server_info_ok = false;    // GET {root}/server_info or /get_server_info answered 200
  bool version_ok = false;        // GET {root}/version answered 200 with a "version"
};

struct Detection {
  ServerKind kind = ServerKind::kGeneric;
  std::string evidence;  // what decided it, for ping output and logs
};

// Order: Server: llama.cpp header, /props, owned_by vllm|sglang|llamacpp,
// /server_info, host name (openrouter.ai, api.openai.com), OpenRouter-shaped
// /models, /version; otherwise generic.
Detection DetectFromFacts(const DetectionFacts& facts);

// GET {base}/models, then only the server-root paths still needed. Endpoint
// headers and key are sent; transport or HTTP failures of the optional paths
// just leave those facts false. A failed /models is an error (FailureClassOf).
Result<Detection> DetectServer(http::Client& client, const EndpointOptions& endpoint,
                               std::chrono::milliseconds timeout);
// The same, reusing an already fetched 200 answer of GET {base}/models.
Detection DetectServerFrom(http::Client& client, const EndpointOptions& endpoint, const http::Response& models,
                           std::chrono::milliseconds timeout);

// Detects one endpoint's server kind (DetectServer with its client and timeout).
using DetectFn = std::function<Result<Detection>(const EndpointOptions&)>;

// Sets each endpoint's wire options: the profile of its server kind, with
// explicit request settings winning. `server` is llm.server: "auto" calls
// `detect` once per endpoint (a failed detection is generic, logged with its
// reason); a ServerKindName is used as is (`detect` is not called; another
// value, which config validation rejects, is generic). Logs each choice.
void ResolveServerProfiles(std::string_view server, std::string_view model, const RequestOverrides& overrides,
                           const DetectFn& detect, std::vector<EndpointOptions>& endpoints, const log::Logger& logger);

}  // namespace seragen::llm
