// EVAL_DIR/results.jsonl: the journal of `seragen eval` (docs/EVAL.md). A
// header line names the model, the run and the scoring rule; then one line
// per finished rollout (task, seed, exit, scores, tokens, time), added after
// its trajectory file is durable by writing the log anew (temp file, fsync,
// rename: a kill leaves the old log or the new one; a log is a few hundred
// short lines). A torn last line (a log copied mid-write) is dropped when the
// log is opened again, so a rerun loses at most the rollouts in flight.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/journal/test_evidence.h"

namespace seragen::eval {

inline constexpr std::string_view kEvalLogFormat = "seragen-eval";
inline constexpr int kEvalLogVersion = 1;

struct EvalHeader {
  std::string model;    // the model id evaluated (as given with --model)
  std::string label;    // how reports name it (--label; default the model id)
  std::string run_dir;  // the run whose held-out tasks are evaluated
  std::string verify_rule = "sera";
  double threshold = 0.5;
};

// One finished rollout of one task.
struct EvalResult {
  std::string task_id;
  std::string instance_id;
  int seed = 0;            // 0..seeds-1
  std::string exit;        // agent exit status name
  bool submitted = false;  // a clean submit
  bool autosubmitted = false;
  bool scorable = false;  // the reference has changed lines (and P2 is not blank under sera)
  double recall = 0, precision = 0, f1 = 0;
  bool resolved = false;  // handed in and recall >= threshold
  // seragen's own test runs of the rollout's patch (eval_tests.h), when the
  // environment runs tests: the evidence ("tests", the journal's encoding)
  // and what it says (true: passes, false: fails, absent: no signal).
  std::optional<bool> tests_passed;
  std::optional<journal::TestEvidence> tests;
  std::int64_t prompt_tokens = 0, completion_tokens = 0;
  int model_calls = 0, steps = 0;
  double wall_seconds = 0;
  std::string trajectory;  // path relative to EVAL_DIR
  std::string model;       // the model id the server reported
};

std::string EncodeEvalHeader(const EvalHeader& header);
std::string EncodeEvalResult(const EvalResult& result);
Result<EvalResult> DecodeEvalResult(std::string_view line);

struct LoadedEvalLog {
  std::optional<EvalHeader> header;  // nullopt: no log yet
  std::vector<EvalResult> results;
  bool torn_tail = false;  // the last line was cut (dropped)
};

// Reads EVAL_DIR/results.jsonl; a missing file is an empty log. A damaged
// line other than the last is kDataLoss naming it.
Result<LoadedEvalLog> ReadEvalLog(const std::string& eval_dir);

// The appending side. Open creates the log with `header`, or reopens one
// whose header names the same model and run (kFailedPrecondition otherwise:
// one EVAL_DIR per model), cutting a torn last line.
class EvalLog {
 public:
  static Result<EvalLog> Open(const std::string& eval_dir, const EvalHeader& header);
  // One more line, durable when this returns. Thread-safe: appends from
  // several threads are written one after another, each onto the log as the
  // previous one left it (the eval records rollouts from its workers).
  Status Append(const EvalResult& result);

 private:
  EvalLog(std::string path, std::string text)
      : path_(std::move(path)), text_(std::move(text)), mutex_(std::make_unique<std::mutex>()) {}
  std::string path_;
  std::string text_;                   // the log's bytes as written; guarded by *mutex_
  std::unique_ptr<std::mutex> mutex_;  // on the heap so that an EvalLog can move
};

// "<dir>/results.jsonl", "<dir>/trajectories/<task>.s<seed>.json" (relative).
std::string EvalLogPath(const std::string& eval_dir);
std::string EvalTrajectoryRef(const std::string& task_id, int seed);

}  // namespace seragen::eval
