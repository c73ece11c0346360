// `seragen export` and `seragen merge`: training JSONL from a run's folded
// state (run_state.h) and its trajectory files. Read-only over the journals.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/export/export_rules.h"
#include "seragen/export/record.h"
#include "seragen/secrets/action.h"
#include "seragen/secrets/scanner.h"
#include "seragen/secrets/summary.h"

namespace seragen::runview {
struct RunState;  // run_state.h
}  // namespace seragen::runview

namespace seragen::publish {

struct ExportRequest {
  std::string run_dir;
  std::string out_dir;  // default RUN_DIR/data
  exporter::ExportOptions options;
  exporter::ExportRules rules;
  std::string run_name;                              // metadata.run of every record
  std::string prompts_dir;                           // for prompts/export templates and category names
  std::map<std::string, std::string> test_commands;  // repository -> its environment.test_command
  // The sera format's tool-list framing file; empty: prompts_dir/export/ default.
  std::string sera_tools_file;
  // export.secrets.*: nullopt scans nothing (docs/SECRETS.md).
  std::optional<secrets::SecretScanner> secret_scanner;
  secrets::SecretAction secret_action = secrets::SecretAction::kRedact;
  std::string secrets_report;  // one JSON line per hit; empty: not written
};

// Flags of `seragen export` / `merge`; unset ones take the run's output.* value.
struct ExportOverrides {
  std::string run_dir, out_dir, prompts_dir;
  std::vector<std::string> formats;          // empty: output.formats
  std::optional<std::string> think;          // keep | drop | wrap
  std::optional<std::string> rollouts;       // t1 | t2 | both
  std::optional<std::string> tool_call_ids;  // keep | short9
  bool train_keys = false;
  bool no_tools = false;
  bool include_unsubmitted = false;
  bool require_tests_passed = false;
  bool require_env_ok = false;  // --require-env-ok
  std::optional<double> threshold;
  std::optional<std::int64_t> max_record_tokens;  // default output.max_record_tokens
  std::string secrets_report;                     // --secrets-report FILE
  std::optional<std::string> secrets_action;      // redact | drop | report; default export.secrets.action
};

// One request per format, from RUN_DIR/config.yaml (the resolved config the
// run saved; defaults when a run predates it) with the overrides applied.
// Fails with kInvalidArgument naming the file when it does not load.
Result<std::vector<ExportRequest>> ExportRequestsFor(const ExportOverrides& overrides);

struct ExportReport {
  std::size_t t1_written = 0;
  std::size_t t2_written = 0;
  std::map<std::string, std::size_t> excluded;  // reason -> count
  std::size_t invalid = 0;                      // failed validation (not written)
  std::size_t duplicates = 0;                   // same task id or same patch seen before
  std::string t1_path, t2_path;
  bool scripted_teacher = false;
  std::set<std::string> models;  // the teacher model ids the written rows' trajectories record
  bool secrets_scanned = false;
  secrets::SecretSummary secrets;
};

// Exclusion reasons of a rollout left out for a secret (export.secrets.action:
// drop, or a redaction that broke its tool-call arguments).
inline constexpr const char* kT1Secret = "t1_secret";
inline constexpr const char* kT2Secret = "t2_secret";

// Writes OUT/t1.<format>.jsonl and OUT/t2.<format>.jsonl (+ OUT/summary.json)
// from every shard of the run. Each task id is exported once, and a patch
// already exported (same P1 for T1 / same P2 for T2) is not repeated, so the
// output of several shards — or of a re-sharded rerun — merges cleanly.
Result<ExportReport> ExportRun(const ExportRequest& request);
// Several exports of one run (its formats, `merge --formats`) from one
// reading of it: reports in the order of `requests`. The run is
// requests.front()'s, read with its prompts directory.
Result<std::vector<ExportReport>> ExportRuns(const std::vector<ExportRequest>& requests);
// ExportRun from a run already folded (FoldRun with the request's prompts
// directory), for callers that export several formats of one reading.
Result<ExportReport> ExportFolded(const ExportRequest& request, const runview::RunState& run);
std::string FormatExport(const ExportReport& report);

}  // namespace seragen::publish
