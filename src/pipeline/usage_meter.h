// UsageMeter: a ChatClient that passes every call through to another one and
// adds the token usage of each answer to running totals, so a run's progress
// line shows tokens while tasks are still in flight (a task's own tokens are
// only summed when it finishes).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "seragen/llm/chat_client.h"

namespace seragen::pipeline {

class UsageMeter final : public llm::ChatClient {
 public:
  // `inner` must outlive the meter. Calls still in flight when the meter is
  // destroyed are counted into totals nobody reads any more.
  explicit UsageMeter(llm::ChatClient* inner);
  std::shared_ptr<llm::CallHandle> Complete(llm::ChatRequest request, llm::CallOptions options,
                                            llm::ChatCallback done) override;
  std::optional<Status> RunStopStatus() const override { return inner_->RunStopStatus(); }

  // Totals of the answers so far; thread-safe.
  std::int64_t prompt_tokens() const { return totals_->prompt.load(); }
  std::int64_t completion_tokens() const { return totals_->completion.load(); }

 private:
  struct Totals {
    std::atomic<std::int64_t> prompt{0};
    std::atomic<std::int64_t> completion{0};
  };
  llm::ChatClient* inner_;
  std::shared_ptr<Totals> totals_ = std::make_shared<Totals>();
};

}  // namespace seragen::pipeline
