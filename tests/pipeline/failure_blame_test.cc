#include "seragen/pipeline/failure_blame.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>

namespace seragen::pipeline {
namespace {

using journal::ErrorFamily;
using llm::FailureClass;

// Every failure class, as FailureClass lists them.
constexpr FailureClass kAll[] = {
    FailureClass::kNone,           FailureClass::kTransientNetwork, FailureClass::kTransientServer,
    FailureClass::kServerNotReady, FailureClass::kRateLimited,      FailureClass::kContextOverflow,
    FailureClass::kOutputBudget,   FailureClass::kConfig,           FailureClass::kQuota,
    FailureClass::kBadRequest,     FailureClass::kToolFormat,       FailureClass::kToolArgs,
    FailureClass::kCancelled};

// The two rules ClassifyFailure replaces: the task runner's (the model for
// context_overflow only) and llm::IsInfrastructureFailure's (the model for
// every class outside its list).
ErrorFamily OldRunnerRule(FailureClass c) {
  return c == FailureClass::kContextOverflow ? ErrorFamily::kModel : ErrorFamily::kInfra;
}
ErrorFamily OldLlmRule(FailureClass c) {
  const std::set<FailureClass> infra = {FailureClass::kTransientNetwork, FailureClass::kTransientServer,
                                        FailureClass::kServerNotReady,   FailureClass::kRateLimited,
                                        FailureClass::kConfig,           FailureClass::kQuota,
                                        FailureClass::kBadRequest,       FailureClass::kCancelled};
  return infra.count(c) ? ErrorFamily::kInfra : ErrorFamily::kModel;
}

}  // namespace

TEST_CASE("one rule blames every failure class, where the two old rules disagreed too", "[pipeline][blame]") {
  std::map<FailureClass, ErrorFamily> disagreed;
  std::map<ErrorFamily, std::set<FailureClass>> by_family;
  for (FailureClass c : kAll) {
    if (OldRunnerRule(c) != OldLlmRule(c)) disagreed[c] = ClassifyFailure(c);
    by_family[ClassifyFailure(c)].insert(c);
  }
  // Where they disagreed: an untagged failure is the infrastructure's (nothing
  // says the model did it, and blaming it drops the task for good); broken
  // tool markup or arguments are the model's output; output_budget is the
  // model's context leaving no room to answer, like context_overflow.
  CHECK(disagreed == std::map<FailureClass, ErrorFamily>{{FailureClass::kNone, ErrorFamily::kInfra},
                                                         {FailureClass::kOutputBudget, ErrorFamily::kModel},
                                                         {FailureClass::kToolFormat, ErrorFamily::kModel},
                                                         {FailureClass::kToolArgs, ErrorFamily::kModel}});
  // Where they agreed, but on the wrong family: a refused setting is the configuration's.
  CHECK(by_family[ErrorFamily::kConfig] == std::set<FailureClass>{FailureClass::kConfig});
  CHECK(by_family[ErrorFamily::kModel] == std::set<FailureClass>{FailureClass::kContextOverflow,
                                                                 FailureClass::kOutputBudget, FailureClass::kToolFormat,
                                                                 FailureClass::kToolArgs});
  CHECK(by_family[ErrorFamily::kInfra].size() == std::size(kAll) - 5);
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
