// Folding one shard's records, one at a time, into a ShardState
// (run_state.h). FoldRun and FoldShard are its users; nothing else applies
// journal records.
#pragma once

#include <string>

#include "seragen/journal/journal_reader.h"
#include "seragen/runview/run_state.h"
#include "seragen/runview/token_accounting.h"

namespace seragen::runview {

class ShardFolder {
 public:
  ShardFolder(int index, std::string shard_dir);
  // Applies the next record of the shard (journal order) to its state.
  void Add(const journal::JournalRecord& record);
  // The state, with the journal's header, config changes and torn tail
  // (its records, if any, are dropped).
  ShardState Finish(journal::LoadedJournal journal) &&;

 private:
  ShardState state_;
  TokenAccountant accountant_;
};

}  // namespace seragen::runview
