// Typed "extra" data of journal task records, one struct per record kind
// (docs/JOURNAL.md, "Record kinds"). The "extra" object of a line decodes
// into the struct of the record's stage; other stages carry none.
//
//   rollout1_done, rollout2_done -> RolloutResult
//   issue_done                   -> IssueResult
//   verified                     -> VerificationResult
//
// Plain values; encoding and decoding live with the record (record.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "seragen/journal/test_evidence.h"

namespace seragen::journal {

// "extra" of rollout1_done / rollout2_done:
//   {"has_patch":true,"patch_sha256":"<hex>","replayed_calls":7,"restarts":1,"discarded_tokens":5120,
//    "category_index":13,"seed":123}
// (replayed_calls, restarts, discarded_tokens only when > 0; category_index
// and seed only in records of writers that record them)
struct RolloutResult {
  bool has_patch = false;
  // Rollout 1 with a patch: SHA-256 hex of P1's exact bytes (duplicate-P1
  // detection on resume). Empty otherwise, and then not written.
  std::string patch_sha256;
  // Model calls answered from the rollout's turn log after a kill (the
  // model was not asked again; their tokens are in the record's tokens).
  std::uint64_t replayed_calls = 0;
  // Times the rollout was started again from scratch because its turn log
  // could not be replayed, and the prompt + completion tokens of the
  // discarded answers (not in the record's tokens).
  std::uint64_t restarts = 0;
  std::uint64_t discarded_tokens = 0;
  // The bug category the rollout-1 attempt was given (a judge retry draws
  // another than the plan's) and the rollout's derived sampling seed; on
  // rollout2_done the category of the accepted rollout-1 attempt. Absent in
  // older records.
  std::optional<std::uint64_t> category_index;
  std::optional<std::uint64_t> seed;
  // The rollout ended on a limit (the record's status names it, e.g.
  // "exit_model_calls") and its diff was submitted anyway, as SERA's harness
  // does. Stage 2 takes such a P1; training rows need a plain "submitted"
  // status by default. Written only when true.
  bool autosubmitted = false;
  // Shell commands of the rollout whose output says the repository's own
  // code could not be imported (env::FailsToImportOwnCode): the environment,
  // not the agent, failed. Written only when > 0.
  std::uint64_t env_broken = 0;

  friend bool operator==(const RolloutResult&, const RolloutResult&) = default;
};

// "extra" of issue_done: {"demo_issue":"<id>","retries":N,"demo_source":"<source>"}
// ("retries" only when > 0, "demo_source" only when known)
struct IssueResult {
  std::string demo_issue;  // id of the demonstration issue shown to the issue writer
  // Answers before this one that held no usable issue text (each a new request).
  std::uint64_t retries = 0;
  // Where the demonstration pool came from: "builtin", "file" or "commits".
  std::string demo_source;

  friend bool operator==(const IssueResult&, const IssueResult&) = default;
};

// The soft-verification scores as recorded (the verify module's Scores; the
// counts are authoritative, the ratios are kept for people reading the file).
struct VerificationScores {
  // The verify rule that produced the counts ("sera", "structural"); empty in
  // records written before rules existed, which were all structural.
  std::string rule;
  std::uint64_t p1_lines = 0;
  std::uint64_t p2_lines = 0;
  std::uint64_t matched = 0;
  bool p2_blank = false;  // P2 empty or whitespace only (the sera rule's "not scorable")
  double recall = 0.0;
  double precision = 0.0;
  double f1 = 0.0;
  bool scorable = false;

  friend bool operator==(const VerificationScores&, const VerificationScores&) = default;
};

// "extra" of verified:
//   {"scores":{"rule":"sera","p1_lines":4,"p2_lines":5,"matched":3,"p2_blank":false,"recall":0.75,"precision":0.6,
//              "f1":0.666…,"scorable":true},"threshold":0.5,"rollout2_submitted":true,"tests":{...}}
struct VerificationResult {
  std::optional<VerificationScores> scores;  // absent: not recorded
  std::optional<double> threshold;           // the acceptance threshold used; absent: not recorded
  bool rollout2_submitted = false;
  // seragen's own test runs (test_evidence.h); absent when the repository
  // has no test command, the evidence step is off, or the writer predates it.
  std::optional<TestEvidence> tests;

  friend bool operator==(const VerificationResult&, const VerificationResult&) = default;
};

// std::monostate: the record has no extra data (or a stage that carries none).
using RecordExtra = std::variant<std::monostate, RolloutResult, IssueResult, VerificationResult>;

}  // namespace seragen::journal
