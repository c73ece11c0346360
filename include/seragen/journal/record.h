// Journal lines: the header and the records of RUN_DIR/shard-K/journal.jsonl
// (docs/DESIGN.md §5, docs/JOURNAL.md).
//
// Every line is one self-contained JSON object. Line 1 is the header:
//   {"format":"seragen-journal","version":1,"config_hash":"...","shard":0,
//    "shards":4,"created":"2026-11-21T12:00:00.000Z"}
// Each later line is a task record (a state change of one task):
//   {"type":"task","task_id":"3fa2...","stage":"rollout1_done","status":"submitted",
//    "attempt":1,"at":"...","timings_ms":{"rollout":8123},"tokens":{...},
//    "refs":{"rollout1":"trajectories/3fa2.r1.json"},"error":{...},
//    "extra":{"has_patch":true,"patch_sha256":"..."}}
// ("extra" is typed per stage: record_extra.h)
// or a config-hash change accepted with an explicit user flag:
//   {"type":"config_change","from":"<old hash>","to":"<new hash>","at":"...",
//    "previous_config":"config.1.yaml"}   (the copy of the replaced config; optional)
//
// Encoding/decoding here is pure (no I/O) and thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "seragen/base/result.h"
#include "seragen/journal/error_class.h"
#include "seragen/journal/record_extra.h"

namespace seragen::journal {

inline constexpr std::string_view kJournalFormat = "seragen-journal";
inline constexpr int kJournalVersion = 1;

// The state changes of a task. A record says "this stage is now done" (or, for
// the last three, "the task ended this way").
enum class Stage {
  kPlanned,       // the task is in this shard's plan
  kRollout1Done,  // rollout 1 finished; refs hold its trajectory
  kIssueDone,     // synthetic issue written
  kJudgeDone,     // optional judge answered (status: "yes"/"no")
  kRollout2Done,  // rollout 2 finished
  kVerified,      // soft verification scored (terminal; status: accepted/rejected/not_scorable)
  kFailed,        // the task stopped on an error (terminal unless error.retryable)
  kSkipped,       // the task was dropped on purpose, e.g. judge said no (terminal)
};

// "planned", "rollout1_done", "issue_done", "judge_done", "rollout2_done",
// "verified", "failed", "skipped".
std::string_view StageName(Stage stage);
// Inverse of StageName; InvalidArgument naming the unknown value.
Result<Stage> ParseStage(std::string_view name);
// Verified, skipped and failed end a task.
bool IsTerminalStage(Stage stage);

struct JournalHeader {
  std::string format = std::string(kJournalFormat);
  int version = kJournalVersion;
  std::string config_hash;
  int shard = 0;        // K in shard K of N, 0-based
  int shards = 1;       // N
  std::string created;  // ISO-8601 UTC

  friend bool operator==(const JournalHeader&, const JournalHeader&) = default;
};

struct TokenUsage {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t reasoning_tokens = 0;
  std::int64_t calls = 0;                 // model calls made
  std::int64_t cached_prompt_tokens = 0;  // prompt tokens served from the server's cache (0 = none or unknown)

  TokenUsage& operator+=(const TokenUsage& add);  // every count summed
  friend bool operator==(const TokenUsage&, const TokenUsage&) = default;
};

// The tokens of a record by the endpoint that answered them, named as
// base/endpoint_name.h names it ("" in AttributedTokens: no endpoint known).
using EndpointTokens = std::map<std::string, TokenUsage>;

// Adds every endpoint's part of `add` into `into`.
void AddEndpointTokens(EndpointTokens& into, const EndpointTokens& add);

struct ErrorInfo {
  ErrorClass error_class;  // on disk "<family>.<cause>", e.g. "infra.exit_llm_error" (error_class.h)
  std::string message;
  bool retryable = false;  // a resumed run may try the task again

  friend bool operator==(const ErrorInfo&, const ErrorInfo&) = default;
};

// Roles in JournalRecord::refs as the pipeline writes them (the paths are
// run_paths.h's TrajectoryRef and IssueRef).
inline constexpr const char* kRefRollout1 = "rollout1";
inline constexpr const char* kRefRollout2 = "rollout2";
inline constexpr const char* kRefIssue = "issue";

struct JournalRecord {
  std::string task_id;  // required
  Stage stage = Stage::kPlanned;
  std::string status;                              // free text of the stage's outcome (exit status, verdict)
  int attempt = 1;                                 // 1 for the first try of this task
  std::string at;                                  // ISO-8601 UTC; Journal::Append fills it when empty
  std::map<std::string, std::int64_t> timings_ms;  // e.g. {"rollout": 8123}
  TokenUsage tokens;
  // The part of `tokens` each endpoint answered ("endpoint_tokens" on disk).
  // Empty in records written before endpoints were recorded, and where no
  // answer was had; calls that got no answer are in `tokens` only.
  EndpointTokens endpoint_tokens;
  // Files this record refers to, by role, as paths relative to the shard
  // directory (e.g. {"trajectory": "trajectories/abc.r1.json"}). No absolute
  // paths, no "..".
  std::map<std::string, std::string> refs;
  std::optional<ErrorInfo> error;
  // The stage's typed data ("extra" on disk): RolloutResult for rollout1_done
  // and rollout2_done, IssueResult for issue_done, VerificationResult for
  // verified; std::monostate when absent and for the other stages.
  RecordExtra extra;

  // The typed extra when it is that kind, else nullptr.
  const RolloutResult* rollout() const { return std::get_if<RolloutResult>(&extra); }
  const IssueResult* issue() const { return std::get_if<IssueResult>(&extra); }
  const VerificationResult* verification() const { return std::get_if<VerificationResult>(&extra); }

  friend bool operator==(const JournalRecord&, const JournalRecord&) = default;
};

// Every token of `record` by the endpoint that answered it: its
// endpoint_tokens, and under "" what `tokens` holds beyond them (all of it
// in a journal written before endpoints were recorded), each count >= 0.
// What the cost ledger prices: "" with llm.pricing, an endpoint with its own.
EndpointTokens AttributedTokens(const JournalRecord& record);

// What a task's latest record says about its outcome, as a fold keeps it per
// task: the record without its task id, time, timings, tokens and refs
// (a fold sums or merges those across the task's records).
struct LatestRecord {
  Stage stage = Stage::kPlanned;
  std::string status;
  int attempt = 1;
  std::optional<ErrorInfo> error;
  RecordExtra extra;

  LatestRecord() = default;
  explicit LatestRecord(const JournalRecord& record)
      : stage(record.stage), status(record.status), attempt(record.attempt), error(record.error), extra(record.extra) {}

  const RolloutResult* rollout() const { return std::get_if<RolloutResult>(&extra); }
  const IssueResult* issue() const { return std::get_if<IssueResult>(&extra); }
  const VerificationResult* verification() const { return std::get_if<VerificationResult>(&extra); }

  friend bool operator==(const LatestRecord&, const LatestRecord&) = default;
};

struct ConfigHashChange {
  std::string from;
  std::string to;
  std::string at;
  std::string previous_config;  // RUN_DIR-relative copy of the replaced config.yaml; empty when none

  friend bool operator==(const ConfigHashChange&, const ConfigHashChange&) = default;
};

// One line of JSON (no newline; never contains a raw newline); never throws.
// Text fields are lossless: any bytes, control characters included, decode
// back unchanged. A text that is not valid UTF-8 is written repaired (U+FFFD)
// in its field and exactly, base64, in "<field>_base64" (docs/JOURNAL.md).
std::string EncodeHeader(const JournalHeader& header);
// InvalidArgument when the record breaks the rules above (empty task id,
// attempt < 1, an extra of another stage's kind, a ref that is absolute or
// has "..", a timing name, ref role or ref path that is not valid UTF-8).
Result<std::string> EncodeRecord(const JournalRecord& record);
std::string EncodeConfigHashChange(const ConfigHashChange& change);

// A decoded line after the header.
struct JournalEntry {
  std::optional<JournalRecord> record;            // "type":"task"
  std::optional<ConfigHashChange> config_change;  // "type":"config_change"
};

// Decoding distinguishes text that is not a complete JSON object (kDataLoss:
// torn or damaged bytes) from a complete JSON object that breaks the schema
// (kParseError: unknown stage/type, wrong field types, including the known
// members of "extra"). Messages name the field. Unknown members are ignored.
// Never throws.
Result<JournalHeader> DecodeHeader(std::string_view line);
Result<JournalEntry> DecodeEntry(std::string_view line);

}  // namespace seragen::journal
