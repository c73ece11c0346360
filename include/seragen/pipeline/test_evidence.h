// The test evidence of one task (docs/VERIFY.md "Test evidence"): seragen
// runs the repository's test command itself on the base commit, base + P1
// and base + P2, each in a fresh workspace (its own working copy and
// sandbox: offline, the slot's limits, bounded time and output), reads the
// per-test outcomes from the runner's own report (verify/test_report.h) and
// records whether P2 reproduces P1's change (verify/test_agreement.h). The
// model's own test commands play no part.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "seragen/callgraph/plan.h"
#include "seragen/journal/test_evidence.h"
#include "seragen/pipeline/workspace.h"
#include "seragen/verify/test_report.h"

namespace seragen::pipeline {

struct EvidenceSettings {
  bool enabled = true;                // verify.test_evidence
  std::chrono::seconds timeout{900};  // verify.test_timeout, per run
  std::size_t output_cap_chars =
      16u << 20;  // characters of a run's output kept (the sandbox holds <= 4 bytes each); more marks it truncated
};

// One of the runs: the test command on a fresh copy of the base commit with
// `patch` applied ("" applies none).
struct TestRun {
  verify::TestFormat format = verify::TestFormat::kExitStatus;
  journal::TestRunSummary summary;
  verify::TestOutcomes outcomes;
  std::string problem;  // why the run gave no outcomes ("" when it did)
};

// Blocking (one sandboxed test run): call on a worker. nullopt when the
// repository has no test command or evidence is off; a run that could not
// be had (no workspace) has status not_started and a problem.
std::optional<TestRun> RunTestsOnCopy(WorkspaceFactory& workspaces, const callgraph::PlannedTask& task, int slot,
                                      const std::string& patch, const EvidenceSettings& settings);

// The evidence of three runs (base, base + P1, base + P2): verdict
// unavailable, with each problem in `detail`, when a run gave no outcomes;
// otherwise verify's CompareTestRuns of their outcomes.
journal::TestEvidence EvidenceOfRuns(const TestRun& base, const TestRun& p1, const TestRun& p2);

// Blocking (three sandboxed test runs): call on a worker. nullopt when the
// repository has no test command (Workspace::test_command() of the first
// workspace) or evidence is off; otherwise the evidence, with verdict
// unavailable when a run did not give outcomes (a workspace could not be
// had, a patch did not apply, a run timed out or overflowed its output).
std::optional<journal::TestEvidence> GatherTestEvidence(WorkspaceFactory& workspaces,
                                                        const callgraph::PlannedTask& task, int slot,
                                                        const std::string& p1, const std::string& p2,
                                                        const EvidenceSettings& settings);

}  // namespace seragen::pipeline
