#include "seragen/pipeline/test_evidence.h"

#include <utility>

#include "seragen/base/log.h"
#include "seragen/verify/test_agreement.h"
#include "seragen/verify/test_report.h"

namespace seragen::pipeline {
namespace {

using journal::TestRunStatus;

struct Run {
  journal::TestRunSummary summary;
  verify::TestOutcomes outcomes;
  std::string problem;  // why the run gave no outcomes ("" when it did)
};

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

std::optional<journal::TestEvidence> GatherTestEvidence(WorkspaceFactory& workspaces,
                                                        const callgraph::PlannedTask& task, int slot,
                                                        const std::string& p1, const std::string& p2,
                                                        const EvidenceSettings& settings) {
  if (!settings.enabled) return std::nullopt;
  journal::TestEvidence e;
  Run runs[3];
  const std::string* patches[] = {nullptr, &p1, &p2};
  const char* names[] = {"base", "p1", "p2"};
  verify::TestFormat format = verify::TestFormat::kExitStatus;
  for (int i = 0; i < 3; ++i) {
    Result<std::unique_ptr<Workspace>> ws = workspaces.Acquire(task, slot);
    if (!ws.ok()) {
      runs[i].summary.status = TestRunStatus::kNotStarted;
      runs[i].problem = ws.status().message();
      continue;
    }
    if ((*ws)->test_command().empty()) return std::nullopt;
    format = verify::FormatForCommand((*ws)->test_command());
    runs[i] = RunIn(**ws, patches[i] ? *patches[i] : std::string(), format, settings);
  }
  e.format = format;
  e.base = runs[0].summary;
  e.p1 = runs[1].summary;
  e.p2 = runs[2].summary;
  for (int i = 0; i < 3; ++i) {
    if (runs[i].problem.empty()) continue;
    e.agreement.verdict = verify::TestVerdict::kUnavailable;
    e.detail += std::string(e.detail.empty() ? "" : "; ") + names[i] + ": " + runs[i].problem.substr(0, 300);
  }
  if (!e.detail.empty()) {
    log::Logger("evidence", task.task_id).Warn("test evidence unavailable: {}", e.detail);
    return e;
  }
  e.agreement =
      verify::CompareTestRuns(runs[0].outcomes, runs[1].outcomes, runs[2].outcomes, journal::kMaxRecordedChanges);
  return e;
}

}  // namespace seragen::pipeline
