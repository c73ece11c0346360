// RunStore over a shard directory: result files written durably, then
// records appended to the shard's journal. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
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
  Result<journal::LoadedTurnLog> LoadTurnLog(const std::string& ref) override;
  Status StartTurnLog(const std::string& ref, const journal::TurnLogHeader& header,
                      const journal::LoadedTurnLog* loaded) override;
  Status AppendTurnAnswer(const std::string& ref, const journal::TurnLogAnswer& answer) override;
  Status AppendTurnOutcome(const std::string& ref, const journal::TurnLogOutcome& outcome) override;
  Status RemoveTurnLog(const std::string& ref) override;

 private:
  // The writer of `ref`, or nullptr (then kFailedPrecondition).
  std::shared_ptr<journal::TurnLogWriter> Writer(const std::string& ref);

  std::string shard_dir_;
  journal::Journal* journal_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<journal::TurnLogWriter>> turn_logs_;
};

}  // namespace seragen::pipeline
