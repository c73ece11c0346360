#include "seragen/pipeline/failure_blame.h"

namespace seragen::pipeline {

using journal::ErrorFamily;
using llm::FailureClass;

ErrorFamily ClassifyFailure(FailureClass failure) {
  switch (failure) {
    case FailureClass::kContextOverflow:
    case FailureClass::kOutputBudget:
    case FailureClass::kToolFormat:
    case FailureClass::kToolArgs: return ErrorFamily::kModel;
    case FailureClass::kConfig: return ErrorFamily::kConfig;
    case FailureClass::kNone:
    case FailureClass::kTransientNetwork:
    case FailureClass::kTransientServer:
    case FailureClass::kServerNotReady:
    case FailureClass::kRateLimited:
    case FailureClass::kQuota:
    case FailureClass::kBadRequest:
    case FailureClass::kCancelled: return ErrorFamily::kInfra;
  }
  return ErrorFamily::kInfra;
}

ErrorFamily ClassifyFailure(agent::ExitStatus exit) {
  switch (exit) {
    case agent::ExitStatus::kConfigError: return ClassifyFailure(FailureClass::kConfig);
    case agent::ExitStatus::kQuota: return ClassifyFailure(FailureClass::kQuota);
    default: return agent::IsInfrastructureExit(exit) ? ErrorFamily::kInfra : ErrorFamily::kModel;
  }
}

}  // namespace seragen::pipeline
