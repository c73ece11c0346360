// Reading every shard journal of a run directory (for `seragen status`,
// `merge` and `export`, which read without taking the shard locks).
#pragma once

#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/journal/journal_reader.h"

namespace seragen::journal {

struct ShardJournal {
  std::string shard_dir;  // RUN_DIR/shard-K
  LoadedJournal journal;
};

// Loads RUN_DIR/shard-*/journal.jsonl for every directory named "shard-<digits>"
// that has a journal, sorted by K. Torn tails are dropped as in LoadJournal
// (a writer may be mid-append). Errors: the first damaged journal (its error
// names file and line); kFailedPrecondition when the shards disagree on the
// shard count N or a directory's K differs from its header; kNotFound when
// RUN_DIR does not exist. A run with no journals yet gives an empty list.
Result<std::vector<ShardJournal>> LoadRunJournals(const std::string& run_dir);

}  // namespace seragen::journal
