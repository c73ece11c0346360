// Reading every shard journal of a run directory (for `seragen status`,
// `merge` and `export`, which read without taking the shard locks).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/journal/journal_reader.h"

namespace seragen::journal {

struct ShardJournal {
  std::string shard_dir;  // RUN_DIR/shard-K
  LoadedJournal journal;
};

// A shard directory RUN_DIR/shard-K and its K.
struct ShardLocation {
  int index = 0;  // K
  std::string dir;
};

// RUN_DIR's directories named "shard-<digits>", sorted by K; kNotFound when
// RUN_DIR does not exist.
Result<std::vector<ShardLocation>> ListShardDirs(const std::string& run_dir);

struct ShardJournalRef {
  std::string dir;
  const LoadedJournal* journal = nullptr;
};

// The rules a run's journals keep, checked for each shard with a header in K
// order: its header names its directory's K, and the same N as the first
// shard's (`first`; nullptr for the first). kFailedPrecondition naming both.
Status CheckShardJournal(const std::string& run_dir, const ShardLocation& shard, const LoadedJournal& journal,
                         const ShardJournalRef* first);

// The shard K of N that runs plan position `plan_index` (round robin).
std::size_t ShardOf(std::size_t plan_index, int shards);

// Loads RUN_DIR/shard-*/journal.jsonl for every directory named "shard-<digits>"
// that has a journal, sorted by K. Torn tails are dropped as in LoadJournal
// (a writer may be mid-append). Errors: the first damaged journal (its error
// names file and line); kFailedPrecondition when the shards disagree on the
// shard count N or a directory's K differs from its header; kNotFound when
// RUN_DIR does not exist. A run with no journals yet gives an empty list.
Result<std::vector<ShardJournal>> LoadRunJournals(const std::string& run_dir);

}  // namespace seragen::journal
