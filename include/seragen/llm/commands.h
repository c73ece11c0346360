// Library side of `seragen llm ping` and `seragen llm chat`: users check
// their endpoint before a run. Each function runs its own event loop and
// blocks until done; the formatters return the text the CLI prints.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "seragen/base/result.h"
#include "seragen/llm/endpoint_options.h"
#include "seragen/llm/models_probe.h"
#include "seragen/llm/server_profile.h"
#include "seragen/llm/startup_check.h"
#include "seragen/llm/types.h"

namespace seragen::llm {

struct PingOptions {
  std::string base_url;
  std::string api_key_env;          // name of the variable; empty = no key
  std::vector<HeaderSpec> headers;  // extra headers (values literal or ${VAR})
  std::string server = "auto";      // llm.server: auto detects
  std::string model;                // for the profile's settings; empty = first listed
  RequestOverrides overrides;       // explicit settings (from a config), shown as they win
  std::chrono::milliseconds timeout{10000};
  bool allow_unlisted_model = false;  // llm.allow_unlisted_model: `model` need not be listed
  // The tool-call check: one chat request with these tools and this user
  // message, answered by a tool call when tool calling works. Empty = none.
  std::string tool_check_prompt;
  std::vector<ToolSpec> tool_check_tools;
};

// What the tool-call check of `llm ping` found.
struct ToolCheck {
  bool ran = false;
  bool works = false;        // one or more calls of an offered tool, arguments one JSON object
  std::string detail;        // what was answered (or why the request failed)
  std::string served_model;  // `model` of the answer, as the server reported it
};

struct PingReport {
  std::string base_url;                  // normalised
  std::chrono::microseconds latency{0};  // GET /models round trip
  ModelsReport models;
  std::optional<std::int64_t> props_context;  // llama.cpp /props n_ctx when available
  std::string server;                         // profile used (detected or configured)
  std::string server_evidence;                // what decided it
  std::string settings;                       // DescribeWireOptions of the profile for the model
  std::string model;                          // the model checked (options.model, else the first listed)
  bool model_listed = true;                   // false: the endpoint does not list `model`
  ToolCheck tool_check;
};

// GET {base}/models (+ /props for llama.cpp), then the server profile
// (detected when options.server is "auto") and the request settings it
// implies for the model without user overrides; whether the endpoint lists
// the model; then the tool-call check (not when the model is unlisted and
// not allowed). Failures of /models carry their class (FailureClassOf)
// with the endpoint named; a failed tool check is in the report.
Result<PingReport> PingEndpoint(const PingOptions& options);
// Only GET {base}/models, typed for the start-of-run check
// (startup_check.h): the ids listed, or whether waiting may help or which
// setting is wrong (from the failure class and HTTP status).
EndpointProbe ProbeEndpointModels(const PingOptions& options);
std::string FormatPingReport(const PingReport& report);

struct ChatCommandOptions {
  std::string base_url;
  std::string api_key_env;
  std::string model;  // empty = first id from /models
  std::string system_prompt;
  std::string prompt;
  std::int64_t max_tokens = 512;
  bool stream = false;
  std::string server = "auto";  // server profile for the request fields; auto detects
  std::chrono::milliseconds timeout{120000};
};

struct ChatCommandReport {
  std::string model;
  ChatResponse response;
};

Result<ChatCommandReport> RunChatCommand(const ChatCommandOptions& options);
std::string FormatChatReport(const ChatCommandReport& report);

}  // namespace seragen::llm
