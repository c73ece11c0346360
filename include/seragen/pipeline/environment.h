// Where a rollout runs: a leased working copy at the base commit with the
// agent's tools bound to it. Releasing (destroying) it restores the copy.
#pragma once

#include <memory>
#include <string>

#include "seragen/agent/tool_executor.h"
#include "seragen/base/result.h"
#include "seragen/pipeline/task.h"

namespace seragen::pipeline {

class RolloutEnvironment {
 public:
  virtual ~RolloutEnvironment() = default;  // restores and returns the copy (may block)
  virtual agent::ToolExecutor& tools() = 0;
  virtual agent::PatchSource& patch() = 0;
  // The path the agent sees for the repository root (e.g. "/repo").
  virtual std::string repo_root() const = 0;
  // The repository's test command (environment.test_command), "" when unset.
  virtual std::string test_command() const { return {}; }
};

class EnvironmentFactory {
 public:
  virtual ~EnvironmentFactory() = default;
  // Blocking (copy creation or reset, sandbox start): call on a worker.
  // `slot` is the task's concurrency slot (it picks the sandbox uid).
  // Errors are infrastructure failures.
  virtual Result<std::unique_ptr<RolloutEnvironment>> Acquire(const Task& task, int slot) = 0;
};

}  // namespace seragen::pipeline
