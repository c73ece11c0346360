// The test evidence step: seragen's own runs of the test command on the
// base, base + P1 and base + P2, recorded in the verified record.
#include <catch2/catch.hpp>

#include "pipeline/runner_world.h"
#include "seragen/journal/resume_state.h"
#include "seragen/pipeline/test_evidence.h"

namespace seragen::pipeline {
namespace {

using verify::TestOutcome;
using verify::TestVerdict;

// JUnit reports: both tests pass on the base; P1 (the fixtures' patch1)
// breaks test_b; what P2 does is up to the test.
std::string Report(bool b_passes) {
  return std::string("<testsuite><testcase classname=\"tests.test_m\" name=\"test_a\"/>") +
         "<testcase classname=\"tests.test_m\" name=\"test_b\">" + (b_passes ? "" : "<failure message=\"x\"/>") +
         "</testcase></testsuite>";
}

struct EvidenceWorld : testing::RunnerWorld {
  testing::ScriptedModel model;
  std::string broken_by;  // patches that break test_b (the others leave it passing)

  EvidenceWorld() {
    demos.set_source("builtin");
    model.Install(chat);
    envs.test_command = "python -m pytest -q";
    ctx.settings.evidence.enabled = true;
    broken_by = envs.patch1;
    envs.tests.run = [this](const std::string& patch, const std::string&) {
      sandbox::CommandResult r;
      const bool broken = !patch.empty() && patch == broken_by;
      r.exit_code = broken ? 1 : 0;
      r.output = Report(!broken);
      return r;
    };
  }

  const journal::VerificationResult& Verified() {
    REQUIRE_FALSE(store.records.empty());
    const journal::JournalRecord& last = store.records.back();
    REQUIRE(last.stage == journal::Stage::kVerified);
    REQUIRE(last.verification() != nullptr);
    return *last.verification();
  }
};

}  // namespace

TEST_CASE("evidence: P2 that breaks the test P1 broke agrees, recorded with the verified record",
          "[pipeline][evidence]") {
  EvidenceWorld w;
  TaskOutcome o = w.Run(testing::RunnerWorld::MakeTask("t1"));  // patch2 == patch1
  CHECK(o.kind == TaskOutcome::Kind::kVerified);
  const journal::VerificationResult& v = w.Verified();
  REQUIRE(v.tests.has_value());
  CHECK(v.tests->format == verify::TestFormat::kJUnitXml);
  CHECK(v.tests->agreement.verdict == TestVerdict::kAgree);
  CHECK(v.tests->base.passed == 2);
  CHECK(v.tests->p1.failed == 1);
  CHECK(v.tests->p2.exit_code == 1);
  CHECK(v.tests->agreement.p1_changed == 1);
  REQUIRE(v.tests->agreement.changes.size() == 1);
  CHECK(v.tests->agreement.changes[0] ==
        verify::TestChange{"tests.test_m::test_b", TestOutcome::kPass, TestOutcome::kFail, TestOutcome::kFail});
  // Three runs of seragen's own command, each in a fresh workspace: base, P1, P2.
  REQUIRE(w.envs.tests.commands.size() == 3);
  for (const std::string& c : w.envs.tests.commands) CHECK(c.find("--junitxml=") != std::string::npos);
  CHECK(w.envs.tests.applied == std::vector<std::string>{w.envs.patch1, w.envs.patch2});
  CHECK(w.envs.acquired["t1"] == 5);  // two rollouts, three evidence runs
}

TEST_CASE("evidence: a P2 that leaves the tests as they were disagrees", "[pipeline][evidence]") {
  EvidenceWorld w;
  w.envs.patch2 = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x = 1\n+y = 2\n";
  w.Run(testing::RunnerWorld::MakeTask("t1"));
  const journal::VerificationResult& v = w.Verified();
  REQUIRE(v.tests.has_value());
  CHECK(v.tests->agreement.verdict == TestVerdict::kDisagree);
  CHECK(v.tests->agreement.reproduced == 0);
  CHECK(v.tests->p2.failed == 0);
}

TEST_CASE("evidence: a patch that does not apply, a run that times out: unavailable, said why",
          "[pipeline][evidence]") {
  EvidenceWorld w;
  w.envs.patch2 += "CONFLICT\n";
  w.Run(testing::RunnerWorld::MakeTask("t1"));
  REQUIRE(w.Verified().tests.has_value());
  CHECK(w.Verified().tests->agreement.verdict == TestVerdict::kUnavailable);
  CHECK(w.Verified().tests->p2.status == journal::TestRunStatus::kPatchFailed);
  CHECK(w.Verified().tests->detail == "p2: the patch does not apply");

  EvidenceWorld slow;
  slow.envs.tests.run = [](const std::string&, const std::string&) {
    sandbox::CommandResult r;
    r.timed_out = true;
    r.exit_code = 137;
    return r;
  };
  slow.Run(testing::RunnerWorld::MakeTask("t1"));
  CHECK(slow.Verified().tests->agreement.verdict == TestVerdict::kUnavailable);
  CHECK(slow.Verified().tests->base.status == journal::TestRunStatus::kTimedOut);
}

TEST_CASE("evidence: none without a test command, none when off", "[pipeline][evidence]") {
  EvidenceWorld w;
  w.envs.test_command = "";
  w.Run(testing::RunnerWorld::MakeTask("t1"));
  CHECK_FALSE(w.Verified().tests.has_value());
  CHECK(w.envs.tests.commands.empty());

  EvidenceWorld off;
  off.ctx.settings.evidence.enabled = false;
  off.Run(testing::RunnerWorld::MakeTask("t1"));
  CHECK_FALSE(off.Verified().tests.has_value());
  CHECK(off.envs.tests.commands.empty());
}

TEST_CASE("evidence: a task resumed after rollout 2 gathers it once, a verified task keeps it",
          "[pipeline][evidence]") {
  EvidenceWorld w;
  w.Run(testing::RunnerWorld::MakeTask("t1"));
  const journal::TestEvidence first = *w.Verified().tests;
  // Killed before the verified record: the resumed task runs the tests once.
  std::vector<journal::JournalRecord> kept(w.store.records.begin(), w.store.records.end() - 1);
  journal::TaskProgress p = *journal::ResumeState::Fold(kept).Find("t1");
  EvidenceWorld again;
  again.store.records = kept;
  again.store.files = w.store.files;
  again.Run(testing::RunnerWorld::MakeTask("t1"), &p);
  CHECK(again.model.rollout_calls == 0);
  CHECK(again.envs.tests.commands.size() == 3);
  REQUIRE(again.Verified().tests.has_value());
  CHECK(again.Verified().tests->agreement == first.agreement);
  // The fold keeps the verified record's evidence: nothing is left to run.
  journal::TaskProgress done = *journal::ResumeState::Fold(again.store.records).Find("t1");
  REQUIRE(done.last.verification() != nullptr);
  CHECK(done.last.verification()->tests->agreement.verdict == first.agreement.verdict);
}

}  // namespace seragen::pipeline
