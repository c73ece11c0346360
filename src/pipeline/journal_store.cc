#include "seragen/pipeline/journal_store.h"

#include "seragen/journal/result_files.h"

namespace seragen::pipeline {

JournalStore::JournalStore(std::string shard_dir, journal::Journal* journal)
    : shard_dir_(std::move(shard_dir)), journal_(journal) {}

Status JournalStore::WriteFile(const std::string& path, std::string_view bytes) {
  return journal::WriteResultFile(shard_dir_, path, bytes);
}

Result<std::string> JournalStore::ReadFile(const std::string& path) {
  return journal::ReadResultFile(shard_dir_, path);
}

Status JournalStore::Append(const journal::JournalRecord& record) { return journal_->Append(record); }

}  // namespace seragen::pipeline
