// The test evidence of `seragen eval` (docs/EVAL.md, "Test evidence"): where
// the environment runs a test command, seragen runs it itself, offline, on
// fresh copies of the base commit, base + the reference patch (once per task)
// and base + each rollout's patch, and decides whether the rollout passes.
//
// The rule (ScoreTestRun): over the tests the base run reports,
//   changed by the reference  tests whose outcome with the reference differs
//                             from the base's (fail -> pass, pass -> fail, or
//                             gone); tests only the reference adds are left
//                             out (a model cannot know their names)
//   passes    the reference changed at least one test, the rollout gives each
//             of them the reference's outcome, and no test that passes on the
//             base and with the reference fails (or is gone) with the rollout
//             (verify's CompareTestRuns: its "agree")
//   fails     otherwise ("disagree"), also when the rollout's own run gives no
//             outcomes (its patch does not apply, its tests hang or flood)
//   no_signal the reference changed no test: left out of the rate's
//             denominator, counted apart
//   unavailable the base or reference run gave no outcomes: likewise
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/journal/test_evidence.h"
#include "seragen/pipeline/test_evidence.h"

namespace seragen::eval {

// The runs of one task that every rollout is compared with; journaled in
// EVAL_DIR/tests/<task>.json so that a resumed eval never runs them again.
struct ReferenceTests {
  pipeline::TestRun base, reference;
};

// A rollout's evidence (base, p1 = the reference, p2 = the rollout) and its
// verdict by the rule above. Pure.
journal::TestEvidence ScoreTestRun(const ReferenceTests& ref, const pipeline::TestRun& rollout);

// The rollout's test pass: true on agree, false on disagree, nullopt
// (no signal) otherwise.
std::optional<bool> TestsPassed(const journal::TestEvidence& evidence);

// One JSON object: {"task_id", "settings" (`settings_key`: what the runs
// depend on besides the task), "runs" (journal's evidence encoding of the
// two runs), "base_tests", "reference_tests" ({"pass":[ids],"fail":[...],
// "skip":[...]}, "truncated")}.
std::string EncodeReferenceTests(const std::string& task_id, const ReferenceTests& ref,
                                 const std::string& settings_key = "");
Result<ReferenceTests> DecodeReferenceTests(std::string_view text);

// "<eval_dir>/tests/<task>.json".
std::string ReferenceTestsPath(const std::string& eval_dir, const std::string& task_id);
// The file's reference runs: nullopt when there is none yet, or when it was
// made under other settings (another test command, environment, timeout or
// output cap: the runs are made again); an unreadable or damaged file is an
// error naming it.
Result<std::optional<ReferenceTests>> ReadReferenceTests(const std::string& eval_dir, const std::string& task_id,
                                                         const std::string& settings_key = "");

}  // namespace seragen::eval
