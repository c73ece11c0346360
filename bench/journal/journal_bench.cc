// Journal benchmark: durable append rate and load/fold rate of a large journal.
// Prints its figures; not part of ctest.
//
//   bench_journal [appends=2000] [load_records=100000] [dir=$TMPDIR or /tmp]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "seragen/base/file_util.h"
#include "seragen/journal/journal.h"
#include "seragen/journal/resume_state.h"
#include "seragen/runview/run_state.h"

using namespace seragen;
using namespace seragen::journal;

namespace {

JournalRecord Sample(int i) {
  JournalRecord r;
  r.task_id = "task-" + std::to_string(i / 6);
  r.stage = static_cast<Stage>(i % 6);
  r.status = "submitted";
  r.timings_ms = {{"rollout", 12000 + i % 1000}};
  r.tokens = {52000, 2100, 700, 18};
  r.refs = {{"trajectory", "trajectories/" + r.task_id + ".json"}};
  // The extra each stage carries.
  if (r.stage == Stage::kRollout1Done || r.stage == Stage::kRollout2Done) r.extra = RolloutResult{true, ""};
  if (r.stage == Stage::kIssueDone) r.extra = IssueResult{"demo-issue"};
  if (r.stage == Stage::kVerified)
    r.extra =
        VerificationResult{VerificationScores{"sera", 12, 9, 7, false, 7.0 / 12, 7.0 / 9, 0.6667, true}, 0.5, true};
  return r;
}

double Seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

int main(int argc, char** argv) {
  int appends = argc > 1 ? std::atoi(argv[1]) : 2000;
  int load_records = argc > 2 ? std::atoi(argv[2]) : 100000;
  const char* tmp = std::getenv("TMPDIR");
  std::string base = argc > 3 ? argv[3] : (tmp && *tmp ? tmp : "/tmp");
  std::string dir = base + "/seragen-bench-journal-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }

  // 1. Durable appends (each one write + fdatasync).
  {
    auto j = Journal::Open({dir + "/shard-0", 0, 1, "bench", false, nullptr});
    if (!j.ok()) {
      std::fprintf(stderr, "%s\n", j.status().ToString().c_str());
      return 1;
    }
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < appends; ++i) {
      Status s = (*j)->Append(Sample(i));
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.ToString().c_str());
        return 1;
      }
    }
    double secs = Seconds(std::chrono::steady_clock::now() - start);
    std::printf(
        "journal append (fdatasync each): %d records in %.3f s = %.0f records/s, "
        "%.3f ms/record\n",
        appends, secs, appends / secs, 1000.0 * secs / appends);
  }

  // 2. Load + fold of a large journal (written in one go, then parsed).
  {
    std::string text =
        EncodeHeader({std::string(kJournalFormat), kJournalVersion, "bench", 0, 1, "2026-01-01T00:00:00.000Z"}) + "\n";
    for (int i = 0; i < load_records; ++i) text += EncodeRecord(Sample(i)).value() + "\n";
    std::string path = dir + "/big.jsonl";
    if (!WriteFileAtomic(path, text).ok()) return 1;
    auto start = std::chrono::steady_clock::now();
    auto loaded = LoadJournal(path);
    double load_secs = Seconds(std::chrono::steady_clock::now() - start);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", loaded.status().ToString().c_str());
      return 1;
    }
    start = std::chrono::steady_clock::now();
    runview::ShardState folded = runview::FoldShard(path, *loaded);
    const journal::ResumeState& state = folded.tasks;
    double fold_secs = Seconds(std::chrono::steady_clock::now() - start);
    std::printf("journal load: %zu records (%.1f MB) in %.3f s = %.0f records/s, %.1f MB/s\n", loaded->records.size(),
                text.size() / 1e6, load_secs, loaded->records.size() / load_secs, text.size() / 1e6 / load_secs);
    std::printf("shard fold: %zu tasks in %.3f s\n", state.tasks().size(), fold_secs);
  }

  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
