// BwrapRunner: every command in a fresh bubblewrap sandbox over one working
// copy (see docs/SANDBOX.md for the exact confinement and why a fresh
// sandbox per command rather than one long-lived shell).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/sandbox/bwrap_args.h"
#include "seragen/sandbox/command_runner.h"
#include "seragen/sandbox/sandbox_options.h"

namespace seragen::sandbox {

class BwrapRunner final : public CommandRunner {
 public:
  // Validates the options, locates bwrap and scans the root view once
  // (ScanRootView, FitPathsToView).
  // `host_copy` is the working copy's absolute host path; it should be
  // prepared with PrepareWorkingCopy() for options.uid.
  static Result<std::unique_ptr<BwrapRunner>> Create(const SandboxOptions& options, const std::string& host_copy);

  // Thread-safe (const state only), though one rollout uses it at a time.
  Result<CommandResult> Run(const CommandRequest& request, const RunLimits& limits) override;
  std::string VisibleRoot() const override { return options_.mount_point; }
  std::string Kind() const override { return "bwrap"; }

 private:
  BwrapRunner(SandboxOptions options, std::string host_copy, std::string bwrap_exe, RootView view);
  SandboxOptions options_;
  std::string host_copy_;
  std::string bwrap_exe_;
  RootView view_;
};

}  // namespace seragen::sandbox
