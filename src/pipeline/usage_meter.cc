#include "pipeline/usage_meter.h"

#include <utility>

namespace seragen::pipeline {

UsageMeter::UsageMeter(llm::ChatClient* inner) : inner_(inner) {}

std::shared_ptr<llm::CallHandle> UsageMeter::Complete(llm::ChatRequest request, llm::CallOptions options,
                                                      llm::ChatCallback done) {
  return inner_->Complete(std::move(request), std::move(options),
                          [totals = totals_, done = std::move(done)](Result<llm::ChatResponse> r) {
                            if (r.ok()) {
                              totals->prompt += r->usage.prompt_tokens;
                              totals->completion += r->usage.completion_tokens;
                            }
                            done(std::move(r));
                          });
}

}  // namespace seragen::pipeline
