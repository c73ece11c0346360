// RunStore over a shard directory: result files written durably, then
// records appended to the shard's journal. Thread-safe.
#pragma once

#include <memory>
#include <string>

#include "seragen/journal/journal.h"
#include "seragen/pipeline/run_store.h"

namespace seragen::pipeline {

class JournalStore final : public RunStore {
 public:
  // `journal` must outlive the store.
  JournalStore(std::string shard_dir, journal::Journal* journal);
  Status WriteFile(const std::string& path, std::string_view bytes) override;
  Result<std::string> ReadFile(const std::string& path) override;
  Status Append(const journal::JournalRecord& record) override;

 private:
  std::string shard_dir_;
  journal::Journal* journal_;
};

}  // namespace seragen::pipeline
