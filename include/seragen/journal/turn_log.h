// Turn logs: the answered model turns of one rollout in flight, so that a
// killed run resumes inside the rollout instead of starting it again
// (docs/JOURNAL.md, "Turn logs"). One file per rollout attempt
// (run_paths.h: TurnLogRef), written by the one process that holds the
// shard's journal, deleted once the rollout's done record is durable.
//
// Line 1 is the header:
//   {"format":"seragen-turns","version":1,"task_id":"3fa2…","rollout":1,"attempt":1,
//    "restarts":0,"discarded_tokens":0}
// then, per answered model call, an answer line (written before its tool call
// runs) and, once the tool call ran, its outcome line:
//   {"type":"answer","call":0,"request_sha256":"…","llm_seconds":2.5,"response":{…}}
//   {"type":"outcome","call":0,"kind":"observation","text":"…","timed_out":false}
// "response" is a model response as trajectory files store it (opaque here:
// the agent module encodes it). Text fields take any bytes (a "<field>_base64"
// sibling when not UTF-8, as in the journal).
//
// Loading: a torn last line (a kill mid-append) is dropped; any other damage,
// and answers that are not numbered 0, 1, 2, … or an outcome that does not
// follow its answer, is kDataLoss; a complete line that breaks the schema is
// kParseError. Callers treat both as "cannot replay": restart the rollout.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/base/unique_fd.h"
#include "seragen/journal/resume_state.h"

namespace seragen::journal {

inline constexpr std::string_view kTurnLogFormat = "seragen-turns";
inline constexpr int kTurnLogVersion = 1;

struct TurnLogHeader {
  std::string task_id;
  int rollout = 1;  // 1 or 2
  int attempt = 1;  // rollout 1: 1 + the judge's "no" answers before it; rollout 2: 1
  // Earlier turn logs of this rollout that could not be replayed and were
  // discarded (the rollout started again), and the prompt + completion tokens
  // their answers had cost: carried along until the rollout's done record.
  std::uint64_t restarts = 0;
  std::int64_t discarded_tokens = 0;

  friend bool operator==(const TurnLogHeader&, const TurnLogHeader&) = default;
};

struct TurnLogAnswer {
  int call = 0;  // 0-based model call index in the rollout
  std::string request_sha256;
  double llm_seconds = 0;
  std::string response_json;  // one JSON object

  friend bool operator==(const TurnLogAnswer&, const TurnLogAnswer&) = default;
};

struct TurnLogOutcome {
  int call = 0;
  std::string kind;  // "observation", "invalid_call", ... (the agent's names)
  std::string text;
  bool timed_out = false;

  friend bool operator==(const TurnLogOutcome&, const TurnLogOutcome&) = default;
};

struct TurnLogTurn {
  TurnLogAnswer answer;
  std::optional<TurnLogOutcome> outcome;
};

struct LoadedTurnLog {
  bool has_header = false;  // false: empty file, or only a torn header
  TurnLogHeader header;
  std::vector<TurnLogTurn> turns;  // in call order
  std::uint64_t valid_bytes = 0;   // length of the prefix of good lines
  std::uint64_t dropped_tail_bytes = 0;
};

// One line each, without the '\n'. kInvalidArgument when response_json is
// not a JSON object.
std::string EncodeTurnLogHeader(const TurnLogHeader& header);
Result<std::string> EncodeTurnLogAnswer(const TurnLogAnswer& answer);
std::string EncodeTurnLogOutcome(const TurnLogOutcome& outcome);

// `name` is used in messages (normally the path).
Result<LoadedTurnLog> ParseTurnLog(std::string_view bytes, const std::string& name);
// The largest turn log LoadTurnLog reads.
inline constexpr std::uint64_t kMaxTurnLogBytes = 1ull << 30;
// kNotFound when the file does not exist; only a regular file
// (ReadRegularFile: no symbolic link, no FIFO or device).
Result<LoadedTurnLog> LoadTurnLog(const std::string& path);
// Removes the file; OK when it does not exist.
Status RemoveTurnLog(const std::string& path);

// Removes the turn logs under shard_dir/turns that no resume will replay:
// those of finished tasks, of rollouts with a done record, and of rollout-1
// attempts the judge has since rejected (a kill between a done record and
// the removal of its log leaves one behind). Call while holding the
// journal. Returns how many were removed.
Result<std::size_t> RemoveFinishedTurnLogs(const std::string& shard_dir, const ResumeState& state);

// Appends to one turn log: each line in one write() on an O_APPEND
// descriptor, then fdatasync, before returning OK. After a failure that
// leaves the file in an unknown state every later append is refused, so the
// file is always a prefix of what was appended (plus at most a torn line).
// Thread-safe.
class TurnLogWriter {
 public:
  // A new log holding only `header` (created atomically; replaces any file
  // at `path`; missing directories are created durably).
  static Result<std::unique_ptr<TurnLogWriter>> Create(const std::string& path, const TurnLogHeader& header);
  // Continues `loaded` (read from `path`), cutting a torn last line first.
  static Result<std::unique_ptr<TurnLogWriter>> Continue(const std::string& path, const LoadedTurnLog& loaded);

  Status AppendAnswer(const TurnLogAnswer& answer);
  Status AppendOutcome(const TurnLogOutcome& outcome);
  const std::string& path() const { return path_; }

 private:
  TurnLogWriter() = default;
  Status AppendLine(std::string line);

  std::mutex mu_;
  std::string path_;
  UniqueFd fd_;
  std::uint64_t size_ = 0;
  Status broken_;
};

}  // namespace seragen::journal
