// RequestLog: what the teacher was asked, for tests, load reports and the
// pipeline's kill test (which counts rollouts started). Thread-safe.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <string>

#include "seragen/base/status.h"

namespace seragen::teacher {

struct RequestRecord {
  std::string kind;          // RequestKindName, or "models", "health", "invalid", "unauthorized"
  std::string conversation;  // ConversationId ("" for non-chat requests)
  int turn = 0;              // assistant turns before this request
  bool rollout_start = false;
  std::string digest;  // SHA-256 prefix of the request body
  int attempt = 0;     // times this exact body was seen before
  std::string fault;   // "none", "500", "429", "reset", "overflow", ...
  int status = 200;
  bool stream = false;
  std::string rejection;  // strict mode: the server's message ("" when accepted)
};

struct RequestCounts {
  std::uint64_t total = 0;
  std::map<std::string, std::uint64_t> by_kind;
  // First turns of agent conversations answered with a clean 200, by kind
  // (retries after injected faults are not counted twice).
  std::map<std::string, std::uint64_t> rollout_starts;
  std::map<std::string, std::uint64_t> faults;  // by fault (without "none")
  std::uint64_t rejected = 0;                   // refused by the strict server mode (fault "rejected")
};

class RequestLog {
 public:
  RequestLog() = default;
  // Also append one JSON line per record to `path` (flushed per line).
  Status OpenFile(const std::string& path);
  void Record(const RequestRecord& record);
  RequestCounts Counts() const;

 private:
  mutable std::mutex mu_;
  RequestCounts counts_;
  std::ofstream file_;
};

}  // namespace seragen::teacher
