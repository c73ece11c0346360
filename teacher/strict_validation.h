// Strict server modes of the scripted teacher: reject a chat request exactly
// as vLLM, SGLang, llama.cpp or OpenAI would (HTTP status, error envelope and
// message wording), so tests can prove seragen sends only what each server
// accepts. Every rule here is one the imitated server enforces (or stricter,
// never more lenient). Pure function of (body, options).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "teacher/options.h"  // StrictMode

namespace seragen::teacher {

struct StrictOptions {
  StrictMode mode = StrictMode::kOff;
  bool jinja = true;     // llama.cpp started with --jinja
  std::string model_id;  // the served model (OpenAI reasoning ids reject more)
};

struct Rejection {
  int status = 400;
  std::string body;     // the server's error envelope
  std::string message;  // the message inside it
};

// nullopt: the imitated server would accept the request.
std::optional<Rejection> ValidateStrict(std::string_view body, const StrictOptions& options);

// What /v1/models says about the owner, and the Server header, per mode.
std::string_view OwnedByFor(StrictMode mode);
std::string_view ServerHeaderFor(StrictMode mode);

}  // namespace seragen::teacher
