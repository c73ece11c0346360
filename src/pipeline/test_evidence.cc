#include "seragen/pipeline/test_evidence.h"

#include <utility>

#include "seragen/base/log.h"
#include "seragen/verify/test_agreement.h"
#include "seragen/verify/test_report.h"

namespace seragen::pipeline {
namespace {

using journal::TestRunStatus;

using Run = TestRun;

void Count(Run& run) {
  run.summary.tests = run.outcomes.tests.size();
  for (const auto& [id, outcome] : run.outcomes.tests) {
    if (outcome == verify::TestOutcome::kPass) ++run.summary.passed;
    else if (outcome == verify::TestOutcome::kFail) ++run.summary.failed;
    else ++run.summary.skipped;
  }
}

// One run in `ws` (fresh): the patch applied, then the evidence command.
Run RunIn(Workspace& ws, const std::string& patch, verify::TestFormat format, const EvidenceSettings& settings) {
  Run run;
  if (!patch.empty()) {
    if (Status applied = ws.ApplyPatch(patch); !applied.ok()) {
      run.summary.status = TestRunStatus::kPatchFailed;
      run.problem = applied.message();
      return run;
    }
  }
  sandbox::RunLimits limits;
  limits.timeout = settings.timeout;
  limits.output_cap_chars = settings.output_cap_chars;
  limits.resources.cpu_seconds = static_cast<int>(settings.timeout.count());
  Result<sandbox::CommandResult> r = ws.RunCommand(verify::EvidenceCommand(format, ws.test_command()), limits);
  if (!r.ok()) {
    run.summary.status = TestRunStatus::kNotStarted;
    run.problem = r.status().message();
    return run;
  }
  run.summary.exit_code = r->exit_code;
  run.summary.duration_ms = static_cast<std::uint64_t>(std::max<std::int64_t>(0, r->duration.count()));
  if (r->timed_out) {
    run.summary.status = TestRunStatus::kTimedOut;
    run.problem = "the tests did not end within " + std::to_string(settings.timeout.count()) + " s";
    return run;
  }
  if (r->truncated() || r->output_limit_killed) {
    run.summary.status = TestRunStatus::kTruncated;
    run.problem = "the tests wrote more than " + std::to_string(settings.output_cap_chars) + " characters";
    return run;
  }
  run.outcomes = verify::ParseTestOutput(format, r->output, r->exit_code);
  Count(run);
  return run;
}

}  // namespace

std::optional<TestRun> RunTestsOnCopy(WorkspaceFactory& workspaces, const callgraph::PlannedTask& task, int slot,
                                      const std::string& patch, const EvidenceSettings& settings) {
  if (!settings.enabled) return std::nullopt;
  Result<std::unique_ptr<Workspace>> ws = workspaces.Acquire(task, slot);
  if (!ws.ok()) {
    TestRun run;
    run.summary.status = TestRunStatus::kNotStarted;
    run.problem = ws.status().message();
    return run;
  }
  if ((*ws)->test_command().empty()) return std::nullopt;
  const verify::TestFormat format = verify::FormatForCommand((*ws)->test_command());
  TestRun run = RunIn(**ws, patch, format, settings);
  run.format = format;
  return run;
}

journal::TestEvidence EvidenceOfRuns(const TestRun& base, const TestRun& p1, const TestRun& p2) {
  journal::TestEvidence e;
  const TestRun* runs[] = {&base, &p1, &p2};
  const char* names[] = {"base", "p1", "p2"};
  e.format = base.format;
  e.base = base.summary;
  e.p1 = p1.summary;
  e.p2 = p2.summary;
  for (int i = 0; i < 3; ++i) {
    if (runs[i]->problem.empty()) continue;
    e.agreement.verdict = verify::TestVerdict::kUnavailable;
    e.detail += std::string(e.detail.empty() ? "" : "; ") + names[i] + ": " + runs[i]->problem.substr(0, 300);
  }
  if (e.detail.empty()) {
    e.agreement = verify::CompareTestRuns(base.outcomes, p1.outcomes, p2.outcomes, journal::kMaxRecordedChanges);
  }
  return e;
}

std::optional<journal::TestEvidence> GatherTestEvidence(WorkspaceFactory& workspaces,
                                                        const callgraph::PlannedTask& task, int slot,
                                                        const std::string& p1, const std::string& p2,
                                                        const EvidenceSettings& settings) {
  TestRun runs[3];
  const std::string* patches[] = {nullptr, &p1, &p2};
  for (int i = 0; i < 3; ++i) {
    std::optional<TestRun> run = RunTestsOnCopy(workspaces, task, slot, patches[i] ? *patches[i] : "", settings);
    if (!run) return std::nullopt;
    runs[i] = std::move(*run);
  }
  // A run that never started knows no format: the others' holds.
  for (const TestRun& r : runs) {
    if (r.summary.status != TestRunStatus::kNotStarted) runs[0].format = r.format;
  }
  journal::TestEvidence e = EvidenceOfRuns(runs[0], runs[1], runs[2]);
  if (!e.detail.empty()) log::Logger("evidence", task.task_id).Warn("test evidence unavailable: {}", e.detail);
  return e;
}

}  // namespace seragen::pipeline
