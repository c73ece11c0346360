#include "runview/shard_fold.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string_view>

#include "seragen/agent/exit_status.h"
#include "seragen/runview/run_state.h"

// The one place journal records are applied (scripts/check-fold): each
// record of a shard, in journal order, into its task's progress
// (journal::ResumeState) and the shard's totals.

namespace seragen::runview {
namespace {

using journal::Stage;

// The digits s[at, at + n) as a number, or -1 when one is not a digit.
int Digits(std::string_view s, std::size_t at, std::size_t n) {
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// The fields of a stamp exactly as our writers make it ("YYYY-MM-DDTHH:MM:SS.mmmZ");
// false for any other shape (ParseIso then takes the lenient path).
bool ParseExactIso(std::string_view s, std::tm* tm, int* ms) {
  if (s.size() != 24 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' ||
      s[23] != 'Z') {
    return false;
  }
  const int f[] = {Digits(s, 0, 4),  Digits(s, 5, 2),  Digits(s, 8, 2), Digits(s, 11, 2),
                   Digits(s, 14, 2), Digits(s, 17, 2), Digits(s, 20, 3)};
  for (int v : f) {
    if (v < 0) return false;
  }
  tm->tm_year = f[0], tm->tm_mon = f[1], tm->tm_mday = f[2], tm->tm_hour = f[3], tm->tm_min = f[4], tm->tm_sec = f[5];
  *ms = f[6];
  return true;
}

// Seconds since the epoch of an ISO-8601 "YYYY-MM-DDTHH:MM:SS.mmmZ" stamp (0 if malformed).
double ParseIso(const std::string& s) {
  std::tm tm{};
  int ms = 0;
  if (!ParseExactIso(s, &tm, &ms) && std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon,
                                                 &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) < 6) {
    return 0;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm)) + ms / 1000.0;
}

// Autosubmitted rollouts are counted apart from plain exits of the same limit.
void CountRolloutExit(const journal::JournalRecord& rec, ShardTotals* t) {
  const journal::RolloutResult* rr = rec.rollout();
  const bool autosubmitted = rr != nullptr && rr->autosubmitted;
  std::optional<agent::ExitStatus> exit = agent::ParseExitStatus(rec.status);
  t->rollout_exits[exit ? agent::OutcomeName(*exit, autosubmitted) : rec.status]++;
  if (autosubmitted) t->autosubmitted++;
  t->rollouts++;
  if (rr != nullptr && rr->env_broken > 0) t->env_broken++;
}

void AddSpan(const std::string& at, ShardTotals* t) {
  if (!at.empty()) {
    if (t->first_at.empty() || at < t->first_at) t->first_at = at;
    if (at > t->last_at) t->last_at = at;
  }
  double s = ParseIso(at);
  if (s > 0) {
    t->first_seconds = t->first_seconds == 0 ? s : std::min(t->first_seconds, s);
    t->last_seconds = std::max(t->last_seconds, s);
  }
}

}  // namespace

ShardFolder::ShardFolder(int index, std::string shard_dir) {
  state_.index = index;
  state_.shard_dir = std::move(shard_dir);
}

void ShardFolder::Add(const journal::JournalRecord& rec) {
  ShardTotals& t = state_.totals;
  t.tokens_by_stage[rec.stage] += rec.tokens;
  journal::EndpointTokens& by_endpoint = t.endpoint_tokens_by_stage[rec.stage];
  if (rec.endpoint_tokens.empty()) {
    by_endpoint[""] += rec.tokens;  // the common case of old journals, without a map per record
  } else {
    journal::AddEndpointTokens(by_endpoint, journal::AttributedTokens(rec));
  }
  if (rec.stage == Stage::kRollout1Done || rec.stage == Stage::kRollout2Done) CountRolloutExit(rec, &t);
  if (const journal::RolloutResult* r1 = rec.stage == Stage::kRollout1Done ? rec.rollout() : nullptr;
      r1 != nullptr && !r1->patch_sha256.empty()) {
    state_.p1_hashes.insert(r1->patch_sha256);
  }
  AddSpan(rec.at, &t);
  accountant_.Add(rec);
  state_.tasks.Apply(rec);
}

ShardState ShardFolder::Finish(journal::LoadedJournal journal) && {
  journal.records.clear();
  journal.records.shrink_to_fit();
  state_.journal = std::move(journal);
  state_.totals.accounting = std::move(accountant_).Result();
  AddStageCache(state_.totals.tokens_by_stage, &state_.totals.accounting);
  return std::move(state_);
}

ShardState FoldShard(const std::string& shard_dir, const journal::LoadedJournal& journal) {
  ShardFolder folder(journal.header.shard, shard_dir);
  for (const journal::JournalRecord& rec : journal.records) folder.Add(rec);
  // All but the records (they were applied above).
  journal::LoadedJournal summary{.has_header = journal.has_header,
                                 .header = journal.header,
                                 .records = {},
                                 .config_changes = journal.config_changes,
                                 .effective_config_hash = journal.effective_config_hash,
                                 .valid_bytes = journal.valid_bytes,
                                 .dropped_tail_bytes = journal.dropped_tail_bytes,
                                 .dropped_tail_line = journal.dropped_tail_line};
  return std::move(folder).Finish(std::move(summary));
}

}  // namespace seragen::runview
