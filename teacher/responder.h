// Responder: everything the teacher decides about one HTTP request, without
// sockets: which fault (if any) to inject, how long to wait, and the exact
// bytes to send. The server only carries the plan out. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "teacher/edit_memory.h"
#include "teacher/options.h"
#include "teacher/prefix_cache.h"
#include "teacher/prompt_set.h"
#include "teacher/request_log.h"
#include "teacher/script_policy.h"

namespace seragen::teacher {

enum class FaultKind {
  kNone,
  k500,
  k502,
  k503,
  k429,
  kReset,
  kHang,
  kTruncate,
  kMidstream,
  kContextOverflow,
  kBadRequest,
  kEndless,  // replay mode only (ScriptedTurn::endless): `body`, then `endless_piece` forever
};

std::string_view FaultKindName(FaultKind kind);

struct ResponsePlan {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  bool stream = false;
  std::string body;                 // non-stream body
  std::vector<std::string> events;  // stream: SSE events in order
  FaultKind fault = FaultKind::kNone;
  std::chrono::milliseconds delay{0};      // before the first byte
  std::chrono::milliseconds chunk_gap{0};  // between stream events
  std::size_t cut_at = 0;                  // kTruncate: body bytes / events sent; kMidstream: events before the error
  std::chrono::milliseconds hang{0};       // kHang: how long to hold the connection
  std::string endless_piece;               // kEndless: sent again and again until the client goes
  RequestRecord record;                    // for the request log
};

class Responder {
 public:
  // `script` (optional, shared by every connection) replaces the rule-based
  // policy for the request kinds it names.
  Responder(TeacherOptions options, PromptSet prompts, std::shared_ptr<ScriptPolicy> script = nullptr);

  // Plans the answer to a POST /v1/chat/completions body. The response bytes
  // of a successful plan depend only on (seed, body), except, with the prefix
  // cache on, usage.prompt_tokens_details.cached_tokens (it depends on the
  // prompts seen before); the fault, latency and glitch draws also depend on
  // how often this exact body was seen before.
  ResponsePlan PlanChat(std::string_view body);

  std::string ModelsBody() const;
  const TeacherOptions& options() const { return options_; }

 private:
  int NextAttempt(const std::string& digest);

  TeacherOptions options_;
  PromptSet prompts_;
  std::shared_ptr<ScriptPolicy> script_;
  std::unique_ptr<PrefixCache> cache_;  // null when options.prefix_cache_blocks is 0
  EditMemory edits_;                    // shared by every request's policy (rollout 1 -> issue writer)
  std::mutex mu_;
  std::map<std::string, int> attempts_;
};

// The fixed "created" timestamp of every response (2026-01-01T00:00:00Z), so
// response bytes do not depend on the wall clock.
inline constexpr std::int64_t kFixedCreated = 1767225600;

}  // namespace seragen::teacher
