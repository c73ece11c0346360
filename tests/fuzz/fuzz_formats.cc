// Targets for text formats read back from disk or the agent's copy: unified
// diffs (verify), journal lines, trajectory files.
#include <cmath>
#include <string>

#include "fuzz/fuzz_targets.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/base/utf8.h"
#include "seragen/journal/journal_reader.h"
#include "seragen/journal/record.h"
#include "seragen/journal/turn_log.h"
#include "seragen/verify/patch_lines.h"
#include "seragen/verify/scores.h"
#include "seragen/verify/sera_lines.h"

namespace seragen::fuzz {
namespace {

std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

bool InUnit(double x) { return !std::isnan(x) && x >= 0.0 && x <= 1.0; }

}  // namespace

int FuzzPatchLines(const std::uint8_t* data, std::size_t size) {
  std::string_view text = AsText(data, size);
  verify::ChangedLines lines = verify::ParsePatchLines(text);
  std::size_t total = 0;
  for (const auto& [line, n] : lines.counts()) {
    SERAGEN_FUZZ_CHECK(!line.empty() && (line[0] == '+' || line[0] == '-'));
    total += n;
  }
  SERAGEN_FUZZ_CHECK(total == lines.size());
  // SERA's rule: every counted line is signed, decoded (valid UTF-8), and
  // holds no line boundary.
  verify::ChangedLines sera = verify::ParseSeraLines(text);
  for (const auto& [line, n] : sera.counts()) {
    SERAGEN_FUZZ_CHECK(!line.empty() && (line[0] == '+' || line[0] == '-') && IsValidUtf8(line));
    SERAGEN_FUZZ_CHECK(line.find_first_of("\n\r\v\f\x1c\x1d\x1e") == std::string::npos);
  }
  // Score the first half against the second: scores stay in [0, 1].
  std::size_t half = text.size() / 2;
  for (verify::VerifyRule rule : {verify::VerifyRule::kSera, verify::VerifyRule::kStructural}) {
    verify::Scores s = verify::ScorePatches(text.substr(0, half), text.substr(half), rule);
    SERAGEN_FUZZ_CHECK(InUnit(s.recall) && InUnit(s.precision) && InUnit(s.f1));
    SERAGEN_FUZZ_CHECK(s.matched <= s.p1_lines && s.matched <= s.p2_lines);
    verify::Scores self = verify::ScorePatches(text, text, rule);
    SERAGEN_FUZZ_CHECK(!self.scorable || self.recall == 1.0);
  }
  return 0;
}

int FuzzJournalReader(const std::uint8_t* data, std::size_t size) {
  auto j = journal::ParseJournal(AsText(data, size), "fuzz.jsonl");
  if (j.ok()) SERAGEN_FUZZ_CHECK(j->valid_bytes + j->dropped_tail_bytes <= size);
  return 0;
}

int FuzzTurnLog(const std::uint8_t* data, std::size_t size) {
  auto log = journal::ParseTurnLog(AsText(data, size), "fuzz.jsonl");
  if (!log.ok()) return 0;
  SERAGEN_FUZZ_CHECK(log->valid_bytes + log->dropped_tail_bytes == size);
  SERAGEN_FUZZ_CHECK(log->has_header || log->turns.empty());
  // What loads writes back as the same lines (text fields exact), and each
  // response is one JSON object the agent's decoder takes or refuses.
  std::string again = log->has_header ? journal::EncodeTurnLogHeader(log->header) + "\n" : "";
  for (std::size_t i = 0; i < log->turns.size(); ++i) {
    const journal::TurnLogTurn& t = log->turns[i];
    SERAGEN_FUZZ_CHECK(t.answer.call == static_cast<int>(i));
    auto answer = journal::EncodeTurnLogAnswer(t.answer);
    SERAGEN_FUZZ_CHECK(answer.ok());
    again += *answer + "\n";
    if (t.outcome) again += journal::EncodeTurnLogOutcome(*t.outcome) + "\n";
    (void)agent::ResponseFromJson(t.answer.response_json);
  }
  auto back = journal::ParseTurnLog(again, "again.jsonl");
  SERAGEN_FUZZ_CHECK(back.ok() && back->dropped_tail_bytes == 0 && back->turns.size() == log->turns.size());
  SERAGEN_FUZZ_CHECK(back->has_header == log->has_header && (!log->has_header || back->header == log->header));
  for (std::size_t i = 0; i < log->turns.size(); ++i) {
    SERAGEN_FUZZ_CHECK(back->turns[i].answer.request_sha256 == log->turns[i].answer.request_sha256);
    SERAGEN_FUZZ_CHECK(back->turns[i].outcome == log->turns[i].outcome);
  }
  return 0;
}

int FuzzJournalRecord(const std::uint8_t* data, std::size_t size) {
  std::string_view line = AsText(data, size);
  // Whatever decodes encodes (unless the writer's rules refuse it, e.g. an
  // absolute ref) as one UTF-8 line that decodes to the same typed values.
  auto entry = journal::DecodeEntry(line);
  if (entry.ok() && entry->record) {
    auto again = journal::EncodeRecord(*entry->record);
    if (again.ok()) {
      SERAGEN_FUZZ_CHECK(again->find('\n') == std::string::npos);
      SERAGEN_FUZZ_CHECK(IsValidUtf8(*again));
      auto back = journal::DecodeEntry(*again);
      SERAGEN_FUZZ_CHECK(back.ok() && back->record && *back->record == *entry->record);
    }
  }
  auto header = journal::DecodeHeader(line);
  if (header.ok()) {
    auto back = journal::DecodeHeader(journal::EncodeHeader(*header));
    SERAGEN_FUZZ_CHECK(back.ok() && *back == *header);
  }
  return 0;
}

int FuzzTrajectory(const std::uint8_t* data, std::size_t size) {
  auto t = agent::TrajectoryFromJson(std::string(AsText(data, size)));
  if (!t.ok()) return 0;
  // Whatever loads saves as UTF-8 and loads again with the same patch bytes.
  std::string text = agent::TrajectoryToJson(*t);
  SERAGEN_FUZZ_CHECK(IsValidUtf8(text));
  auto back = agent::TrajectoryFromJson(text);
  SERAGEN_FUZZ_CHECK(back.ok());
  SERAGEN_FUZZ_CHECK(back->patch == t->patch);
  return 0;
}

}  // namespace seragen::fuzz
