// RunStore: the durable side of a shard: result files and journal records.
// A record is appended only after the files it refers to are durable.
// All methods may block (fsync): call them on a worker. Thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/journal/record.h"

namespace seragen::pipeline {

class RunStore {
 public:
  virtual ~RunStore() = default;
  // Writes shard-relative `path` durably (temp, fsync, rename).
  virtual Status WriteFile(const std::string& path, std::string_view bytes) = 0;
  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  virtual Status Append(const journal::JournalRecord& record) = 0;
};

}  // namespace seragen::pipeline
