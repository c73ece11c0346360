#include "testing/fake_command_runner.h"

namespace seragen::sandbox {

void FakeCommandRunner::SetHandler(Handler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  handler_ = std::move(handler);
}

void FakeCommandRunner::Enqueue(Result<CommandResult> result) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(std::move(result));
}

void FakeCommandRunner::EnqueueOutput(std::string output, int exit_code) {
  CommandResult r;
  r.exit_code = exit_code;
  r.total_output_bytes = output.size();
  r.output = std::move(output);
  Enqueue(std::move(r));
}

Result<CommandResult> FakeCommandRunner::Run(const CommandRequest& request, const RunLimits& limits) {
  Handler handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
    limits_.push_back(limits);
    if (!handler_ && !queue_.empty()) {
      Result<CommandResult> r = std::move(queue_.front());
      queue_.pop_front();
      return r;
    }
    handler = handler_;
  }
  if (handler) return handler(request, limits);
  CommandResult r;
  r.exit_code = 0;
  return r;
}

std::vector<CommandRequest> FakeCommandRunner::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

std::vector<RunLimits> FakeCommandRunner::limits_seen() const {
  std::lock_guard<std::mutex> lock(mu_);
  return limits_;
}

}  // namespace seragen::sandbox
