#include "seragen/pipeline/toolbox_executor.h"

#include <chrono>

namespace seragen::pipeline {

std::vector<llm::ToolSpec> ToolBoxExecutor::Specs() const {
  std::vector<llm::ToolSpec> out;
  for (const auto& t : resources_->specs.tools) out.push_back({t.name, t.description, t.parameters_schema_json});
  return out;
}

agent::ToolOutcome ToolBoxExecutor::Execute(const llm::ToolCall& call) {
  auto start = std::chrono::steady_clock::now();
  agent::ToolOutcome out;
  Result<tools::ToolCallResult> r = box_->Call(call.name, call.arguments_json);
  const bool submission = r.ok() && !r->validation_error && r->outcome.role == tools::ToolRole::kSubmit;
  if (!submission) ++possible_writes_;
  out.duration = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
  if (!r.ok()) {
    out.kind = agent::ToolOutcome::Kind::kHarnessError;
    out.text = r.status().ToString();
    return out;
  }
  if (r->validation_error) {
    out.kind = agent::ToolOutcome::Kind::kInvalidCall;
    out.text = r->validation_error->message;
    return out;
  }
  if (r->outcome.patch_too_large) {
    out.kind = agent::ToolOutcome::Kind::kPatchTooLarge;
    out.text = r->outcome.observation;
    return out;
  }
  out.text = r->outcome.observation;
  out.submitted = r->outcome.submitted;
  out.timed_out = r->outcome.timed_out;
  out.exit_code = r->outcome.exit_code;
  out.disk_limit = r->outcome.disk_limit;
  return out;
}

}  // namespace seragen::pipeline
