#include "seragen/pipeline/failure_blame.h"

#include <catch2/catch.hpp>

namespace seragen::pipeline {
namespace {

using journal::ErrorFamily;
using llm::FailureClass;

// Every failure class, with the family the one rule gives it and what the two
// rules it replaces said: the task runner's (model for context_overflow only)
// and llm::IsInfrastructureFailure (infrastructure for the listed classes,
// model for every other one).
struct Row {
  FailureClass failure;
  ErrorFamily family;
  ErrorFamily old_runner;
  ErrorFamily old_llm;
};

constexpr ErrorFamily kI = ErrorFamily::kInfra, kM = ErrorFamily::kModel, kC = ErrorFamily::kConfig;

constexpr Row kRows[] = {
    // The rows where the two old rules disagreed, and why the one rule reads them so:
    // untagged: nothing says the model did it, and blaming it would drop the task for good.
    {FailureClass::kNone, kI, kI, kM},
    // The model's own output broke the tool protocol.
    {FailureClass::kToolFormat, kM, kI, kM},
    {FailureClass::kToolArgs, kM, kI, kM},
    // Like context_overflow: the task's context leaves no room for an answer.
    {FailureClass::kOutputBudget, kM, kI, kM},
    // Both old rules called it infrastructure; it is the user's configuration.
    {FailureClass::kConfig, kC, kI, kI},
    // The rows where they agreed.
    {FailureClass::kContextOverflow, kM, kM, kM},
    {FailureClass::kTransientNetwork, kI, kI, kI},
    {FailureClass::kTransientServer, kI, kI, kI},
    {FailureClass::kServerNotReady, kI, kI, kI},
    {FailureClass::kRateLimited, kI, kI, kI},
    {FailureClass::kQuota, kI, kI, kI},
    {FailureClass::kBadRequest, kI, kI, kI},
    {FailureClass::kCancelled, kI, kI, kI},
};

}  // namespace

TEST_CASE("one rule blames every failure class, where the two old rules disagreed too", "[pipeline][blame]") {
  int disagreed = 0;
  for (const Row& row : kRows) {
    CAPTURE(llm::FailureClassName(row.failure));
    CHECK(ClassifyFailure(row.failure) == row.family);
    if (row.old_runner != row.old_llm) ++disagreed;
  }
  CHECK(disagreed == 4);          // none, tool_format, tool_args, output_budget
  CHECK(std::size(kRows) == 13);  // every FailureClass
}

TEST_CASE("a rollout's failing exit is blamed by the call failure behind it", "[pipeline][blame]") {
  using agent::ExitStatus;
  CHECK(ClassifyFailure(ExitStatus::kConfigError) == ErrorFamily::kConfig);
  CHECK(ClassifyFailure(ExitStatus::kQuota) == ErrorFamily::kInfra);
  CHECK(ClassifyFailure(ExitStatus::kLlmError) == ErrorFamily::kInfra);
  CHECK(ClassifyFailure(ExitStatus::kToolError) == ErrorFamily::kInfra);
  CHECK(ClassifyFailure(ExitStatus::kCancelled) == ErrorFamily::kInfra);
  CHECK(ClassifyFailure(ExitStatus::kFormat) == ErrorFamily::kModel);
  CHECK(ClassifyFailure(ExitStatus::kContext) == ErrorFamily::kModel);
}

}  // namespace seragen::pipeline
