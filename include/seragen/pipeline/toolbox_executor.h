// Adapts tools::ToolBox to the agent loop's ToolExecutor: validation errors
// become format errors (kInvalidCall), a failing harness becomes
// kHarnessError, everything else is an observation. Not thread-safe (one
// per rollout, like the ToolBox).
#pragma once

#include <cstdint>

#include "seragen/agent/tool_executor.h"
#include "seragen/tools/tool_box.h"

namespace seragen::pipeline {

class ToolBoxExecutor final : public agent::ToolExecutor {
 public:
  // Both must outlive this object.
  ToolBoxExecutor(tools::ToolBox* box, const tools::ToolResources* resources) : box_(box), resources_(resources) {}
  std::vector<llm::ToolSpec> Specs() const override;
  agent::ToolOutcome Execute(const llm::ToolCall& call) override;

  // Calls so far that may have changed the working copy: every call but a
  // successful submission (which only reads it), failed and invalid calls
  // included.
  std::uint64_t possible_writes() const { return possible_writes_; }

 private:
  tools::ToolBox* box_;
  const tools::ToolResources* resources_;
  std::uint64_t possible_writes_ = 0;
};

}  // namespace seragen::pipeline
