// SseAssembler: rebuilds a ChatResponse from a chat-completions event stream
// fed in arbitrary byte pieces (any TCP split, \n / \r\n / \r line ends,
// multi-line data fields, ':' comment lines).
//
// Tool-call fragments are keyed by index; id/name come from the first
// fragment that has them; arguments are concatenated and parsed once, at
// Finish(). A data object with a top-level "error" (or object:"error", or
// finish_reason "error") fails the stream as kTransientServer; so does a
// stream that ends without a finish_reason. Not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/base/status.h"
#include "seragen/llm/types.h"

namespace seragen::llm {

class SseAssembler {
 public:
  // `max_bytes`: total stream bytes accepted; past it the stream fails as
  // kTransientServer (an endless stream). 0 = no cap.
  explicit SseAssembler(std::size_t max_bytes = 0);
  ~SseAssembler();
  SseAssembler(SseAssembler&&) noexcept;
  SseAssembler& operator=(SseAssembler&&) noexcept;

  // Consumes bytes. Returns false once the stream has failed (the caller
  // may stop reading); later input is ignored.
  bool Feed(std::string_view bytes);

  bool failed() const { return !failure_.ok(); }
  const Status& failure() const { return failure_; }
  bool saw_done() const { return saw_done_; }

  // Call at end of input: the assembled response, or the failure.
  Result<ChatResponse> Finish();

 private:
  void ProcessLine(std::string_view line);
  void Dispatch();
  void HandleData(std::string_view data);

  struct PartialCall {
    std::string id;
    std::string name;
    std::string arguments;
  };

  std::size_t max_bytes_ = 0;
  std::size_t fed_bytes_ = 0;
  std::string pending_;  // bytes not yet ending a line
  bool last_was_cr_ = false;
  std::string event_data_;  // data lines of the current event
  bool event_has_data_ = false;
  Status failure_;
  bool saw_done_ = false;
  ChatResponse response_;
  bool saw_reasoning_field_ = false;
  bool saw_reasoning_content_field_ = false;
  std::map<long long, PartialCall> calls_;
};

}  // namespace seragen::llm
