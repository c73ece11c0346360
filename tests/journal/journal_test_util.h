// Shared helpers for journal tests: a real multi-record journal built by the writer.
#pragma once

#include <string>
#include <vector>

#include "seragen/base/clock.h"
#include "seragen/journal/journal.h"

namespace seragen::journal::testing_util {

inline JournalRecord MakeRecord(int i) {
  static const Stage kStages[] = {Stage::kPlanned,   Stage::kRollout1Done, Stage::kIssueDone,
                                  Stage::kJudgeDone, Stage::kRollout2Done, Stage::kVerified};
  JournalRecord r;
  r.task_id = "task-" + std::to_string(i / 3);
  r.stage = kStages[i % 6];
  r.status = i % 2 ? "submitted" : "ok \"quoted\" \xc3\xa9\xe2\x9c\x93";
  r.attempt = 1 + i % 2;
  r.timings_ms = {{"rollout", 1000 + i}};
  r.tokens = {100 * i, 10 * i, i, 1};
  if (i % 3 == 1) r.refs = {{"trajectory", "trajectories/t" + std::to_string(i) + ".json"}};
  if (i % 5 == 4) r.error = ErrorInfo{ParseErrorClass("infra.timeout"), "line one\nline two\t{}", i % 2 == 0};
  if (r.stage == Stage::kRollout1Done) r.extra = RolloutResult{i % 2 == 0, "sha-\"}" + std::to_string(i)};
  if (r.stage == Stage::kIssueDone) r.extra = IssueResult{"demo {\"}\n" + std::to_string(i)};
  if (r.stage == Stage::kVerified) {
    r.extra = VerificationResult{
        VerificationScores{"sera", 4, 5, 3, i % 2 == 1, 0.75, 0.6, 2 * 0.75 * 0.6 / 1.35, true}, 0.5, i % 2 == 0};
  }
  return r;
}

struct BuiltJournal {
  std::string path;
  std::vector<JournalRecord> appended;  // as given to Append (without `at`)
};

// Writes `first` records with hash "hash-a", reopens with "hash-b" (allowed:
// one config_change line), then writes `second` more records.
inline BuiltJournal BuildJournal(const std::string& shard_dir, int first, int second) {
  FakeClock clock;
  BuiltJournal built;
  JournalOptions o{shard_dir, 1, 3, "hash-a", false, &clock};
  {
    auto j = Journal::Open(o).value();
    built.path = j->path();
    for (int i = 0; i < first; ++i) {
      built.appended.push_back(MakeRecord(i));
      if (!j->Append(built.appended.back()).ok()) std::abort();
      clock.Advance(std::chrono::milliseconds(7));
    }
  }
  o.config_hash = "hash-b";
  o.allow_config_change = true;
  auto j = Journal::Open(o).value();
  for (int i = first; i < first + second; ++i) {
    built.appended.push_back(MakeRecord(i));
    if (!j->Append(built.appended.back()).ok()) std::abort();
    clock.Advance(std::chrono::milliseconds(7));
  }
  return built;
}

}  // namespace seragen::journal::testing_util
