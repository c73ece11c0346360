// The secret scan of one exported row: every text of a trajectory that
// leaves as data scanned as one row, and under redaction written back into
// the caller's copy so that every export format carries the same
// placeholders. What is scanned: message contents, reasoning and names,
// tool-call ids (the model chooses them) and names, tool-call arguments as
// the strings they decode to (a key written into a JSON string is found
// with its real newlines) and then as JSON text (an assignment whose name is
// a JSON key), the patch, and the metadata texts the caller passes (anything
// built from raw turns, the model id, repository and function names).
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "seragen/agent/trajectory.h"
#include "seragen/secrets/scanner.h"

namespace seragen::publish {

// What a scanned field was, for the secrets report.
struct ScannedField {
  int message = -1;  // index into Trajectory::history; -1 for the patch and metadata
  std::string part;  // content | reasoning | name | id | tool_call_id | arguments | patch | metadata.NAME
};

// A metadata text of the record, scanned with the row and redacted in place.
struct MetadataText {
  std::string name;  // as in the record: "tests.command", "model", ...
  std::string* text;
};

struct TrajectoryScan {
  secrets::RowScan scan;  // counts of both passes; `hits` index no particular row
  // Under redaction: false when a tool call's arguments stopped being one
  // JSON object (a secret that straddled JSON syntax); the row must not ship.
  bool arguments_valid = true;
};

// Every hit with the field it was found in, as the scan goes (bounded memory).
using TrajectoryHitSink = std::function<void(const secrets::SecretHit&, const ScannedField&)>;

// Scans `traj` and `metadata`; when `redact` and there are hits, replaces
// their texts with the redacted ones. Total: never throws, whatever bytes
// the trajectory holds. The trajectory's raw turns are not scanned: callers
// take what they need from them into `metadata` and drop them.
TrajectoryScan ScanTrajectory(const secrets::SecretScanner& scanner, bool redact, agent::Trajectory* traj,
                              std::span<const MetadataText> metadata = {}, const TrajectoryHitSink& sink = {});

// One JSON line (no newline) of `export --secrets-report`: task id, rollout,
// message index, part, rule, hash8 and the masked context. Never the secret
// itself.
std::string SecretsReportLine(const secrets::SecretHit& hit, const ScannedField& field, const std::string& task_id,
                              int rollout);

}  // namespace seragen::publish
