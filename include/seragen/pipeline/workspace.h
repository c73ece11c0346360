// Where a rollout runs (its workspace): a leased working copy at the base
// commit, the sandbox its commands run in and the agent's tools bound to it.
// Releasing (destroying) it restores the copy. Not to be confused with an
// execution environment (`env::`: an image root and a setup prefix), which a
// workspace may be built on.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "seragen/agent/tool_executor.h"
#include "seragen/base/result.h"
#include "seragen/callgraph/plan.h"
#include "seragen/sandbox/command_runner.h"

namespace seragen::pipeline {

class Workspace {
 public:
  virtual ~Workspace() = default;  // restores and returns the copy (may block)
  virtual agent::ToolExecutor& tools() = 0;
  virtual PatchSource& patch() = 0;
  // The path the agent sees for the repository root (e.g. "/repo").
  virtual std::string repo_root() const = 0;
  // The repository's test command (environment.test_command), "" when unset.
  virtual std::string test_command() const { return {}; }
  // The repository's own top-level modules (env::Profile::own_modules of the
  // copy at its base commit); empty when unknown.
  virtual std::vector<std::string> own_modules() const { return {}; }
  // The test evidence's runs (test_evidence.h), in a workspace no agent has
  // used: applies `patch` (git diff text) to the copy, inside its sandbox;
  // FailedPrecondition with the tool's message when it does not apply.
  virtual Status ApplyPatch(const std::string& patch) {
    (void)patch;
    return UnimplementedError("this workspace cannot apply patches");
  }
  // Runs `command` from the copy's root in its sandbox with `limits` (a
  // non-OK Status only when the sandbox could not run it).
  virtual Result<sandbox::CommandResult> RunCommand(const std::string& command, const sandbox::RunLimits& limits) {
    (void)command;
    (void)limits;
    return UnimplementedError("this workspace cannot run commands");
  }
};

class WorkspaceFactory {
 public:
  virtual ~WorkspaceFactory() = default;
  // Blocking (copy creation or reset, sandbox start): call on a worker.
  // `slot` is the task's concurrency slot (it picks the sandbox uid).
  // Errors are infrastructure failures.
  virtual Result<std::unique_ptr<Workspace>> Acquire(const callgraph::PlannedTask& task, int slot) = 0;
};

}  // namespace seragen::pipeline
