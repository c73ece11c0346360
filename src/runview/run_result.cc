#include "seragen/runview/run_result.h"

namespace seragen::runview {

std::string_view RunResultName(RunResult result) {
  switch (result) {
    case RunResult::kComplete: return "complete";
    case RunResult::kIncomplete: return "incomplete";
    case RunResult::kNothingSucceeded: return "nothing_succeeded";
    case RunResult::kInterrupted: return "interrupted";
    case RunResult::kConfigStop: return "config_error";
    case RunResult::kRuntimeError: return "runtime_error";
  }
  return "runtime_error";
}

RunResult ClassifyTally(const TaskTally& t) {
  if (t.done >= t.planned) return RunResult::kComplete;
  if (t.done == 0) return RunResult::kNothingSucceeded;
  return RunResult::kIncomplete;
}

}  // namespace seragen::runview
