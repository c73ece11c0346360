// The secret scan of one exported row: every text of a trajectory that
// leaves as data (message contents and reasoning, tool-call arguments, the
// patch; rollout 2's issue is its instance message) scanned as one row, and
// under redaction written back into the caller's copy so that every export
// format carries the same placeholders.
#pragma once

#include <string>
#include <vector>

#include "seragen/agent/trajectory.h"
#include "seragen/secrets/scanner.h"

namespace seragen::runview {

// What a scanned field was, for the secrets report.
struct ScannedField {
  int message = -1;  // index into Trajectory::history; -1 for the patch
  std::string part;  // content | reasoning | arguments | patch
};

struct TrajectoryScan {
  secrets::RowScan scan;  // hits index `fields`
  std::vector<ScannedField> fields;
  // Under redaction: false when a tool call's arguments stopped being one
  // JSON object (a secret that straddled JSON syntax); the row must not ship.
  bool arguments_valid = true;
};

// Scans `traj`; when `redact` and there are hits, replaces its texts with the
// redacted ones. Total: never throws, whatever bytes the trajectory holds.
TrajectoryScan ScanTrajectory(const secrets::SecretScanner& scanner, bool redact, agent::Trajectory* traj);

// One JSON line (no newline) per hit for `export --secrets-report`: task id,
// rollout, message index, part, rule, hash8 and the masked context. Never
// the secret itself.
std::string SecretsReportLines(const TrajectoryScan& scan, const std::string& task_id, int rollout);

}  // namespace seragen::runview
