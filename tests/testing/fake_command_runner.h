// FakeCommandRunner: a scripted CommandRunner for tests of other modules.
// Records every request; answers from a handler, else from a FIFO of
// queued results, else with exit code 0 and empty output. Thread-safe.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "seragen/sandbox/command_runner.h"

namespace seragen::sandbox {

class FakeCommandRunner final : public CommandRunner {
 public:
  using Handler = std::function<Result<CommandResult>(const CommandRequest&, const RunLimits&)>;

  explicit FakeCommandRunner(std::string visible_root = "/repo") : visible_root_(std::move(visible_root)) {}

  void SetHandler(Handler handler);
  // Queues one answer (a result or an infrastructure error).
  void Enqueue(Result<CommandResult> result);
  // Queues an answer with this output and exit code.
  void EnqueueOutput(std::string output, int exit_code = 0);

  Result<CommandResult> Run(const CommandRequest& request, const RunLimits& limits) override;
  std::string VisibleRoot() const override { return visible_root_; }
  std::string Kind() const override { return "fake"; }

  std::vector<CommandRequest> requests() const;
  std::vector<RunLimits> limits_seen() const;

 private:
  mutable std::mutex mu_;
  std::string visible_root_;
  Handler handler_;
  std::deque<Result<CommandResult>> queue_;
  std::vector<CommandRequest> requests_;
  std::vector<RunLimits> limits_;
};

}  // namespace seragen::sandbox
