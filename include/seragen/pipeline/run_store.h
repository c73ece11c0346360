// RunStore: the durable side of a shard: result files and journal records.
// A record is appended only after the files it refers to are durable.
// All methods may block (fsync): call them on a worker. Thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/journal/record.h"
#include "seragen/journal/turn_log.h"

namespace seragen::pipeline {

class RunStore {
 public:
  virtual ~RunStore() = default;
  // Writes shard-relative `path` durably (temp, fsync, rename).
  virtual Status WriteFile(const std::string& path, std::string_view bytes) = 0;
  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  virtual Status Append(const journal::JournalRecord& record) = 0;

  // Turn logs of rollouts in flight (journal/turn_log.h), by shard-relative
  // ref (journal::TurnLogRef). kNotFound when there is none; kDataLoss or
  // kParseError when it is damaged.
  virtual Result<journal::LoadedTurnLog> LoadTurnLog(const std::string& ref) = 0;
  // Starts writing the log `ref`: a new one holding `header` (replacing any
  // old one), or, with `loaded` (what LoadTurnLog returned), continuing it.
  virtual Status StartTurnLog(const std::string& ref, const journal::TurnLogHeader& header,
                              const journal::LoadedTurnLog* loaded) = 0;
  // Durable on OK. Only after StartTurnLog(ref).
  virtual Status AppendTurnAnswer(const std::string& ref, const journal::TurnLogAnswer& answer) = 0;
  virtual Status AppendTurnOutcome(const std::string& ref, const journal::TurnLogOutcome& outcome) = 0;
  // Stops writing `ref` and deletes it (OK when it does not exist).
  virtual Status RemoveTurnLog(const std::string& ref) = 0;
};

}  // namespace seragen::pipeline
