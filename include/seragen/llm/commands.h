// Library side of `seragen llm ping` and `seragen llm chat`: users check
// their endpoint before a run. Each function runs its own event loop and
// blocks until done; the formatters return the text the CLI prints.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "seragen/base/result.h"
#include "seragen/llm/models_probe.h"
#include "seragen/llm/types.h"

namespace seragen::llm {

struct PingOptions {
  std::string base_url;
  std::string api_key_env;  // name of the variable; empty = no key
  std::chrono::milliseconds timeout{10000};
};

struct PingReport {
  std::string base_url;  // normalised
  std::chrono::microseconds latency{0};  // GET /models round trip
  ModelsReport models;
  std::optional<std::int64_t> props_context;  // llama.cpp /props n_ctx when available
};

// GET {base}/models (+ /props for llama.cpp). Failures are tagged Statuses
// (FailureClassOf) with the endpoint named.
Result<PingReport> PingEndpoint(const PingOptions& options);
std::string FormatPingReport(const PingReport& report);

struct ChatCommandOptions {
  std::string base_url;
  std::string api_key_env;
  std::string model;  // empty = first id from /models
  std::string system_prompt;
  std::string prompt;
  std::int64_t max_tokens = 512;
  bool stream = false;
  std::chrono::milliseconds timeout{120000};
};

struct ChatCommandReport {
  std::string model;
  ChatResponse response;
};

Result<ChatCommandReport> RunChatCommand(const ChatCommandOptions& options);
std::string FormatChatReport(const ChatCommandReport& report);

}  // namespace seragen::llm
