#include "pipeline/journal_store.h"

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

Result<journal::LoadedTurnLog> JournalStore::LoadTurnLog(const std::string& ref) {
  return journal::LoadTurnLog(shard_dir_ + "/" + ref);
}

Status JournalStore::StartTurnLog(const std::string& ref, const journal::TurnLogHeader& header,
                                  const journal::LoadedTurnLog* loaded) {
  const std::string path = shard_dir_ + "/" + ref;
  Result<std::unique_ptr<journal::TurnLogWriter>> w =
      loaded ? journal::TurnLogWriter::Continue(path, *loaded) : journal::TurnLogWriter::Create(path, header);
  if (!w.ok()) return w.status();
  std::lock_guard<std::mutex> lock(mu_);
  turn_logs_[ref] = std::shared_ptr<journal::TurnLogWriter>(std::move(*w));
  return Status::Ok();
}

std::shared_ptr<journal::TurnLogWriter> JournalStore::Writer(const std::string& ref) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = turn_logs_.find(ref);
  return it == turn_logs_.end() ? nullptr : it->second;
}

Status JournalStore::AppendTurnAnswer(const std::string& ref, const journal::TurnLogAnswer& answer) {
  auto w = Writer(ref);
  if (!w) return FailedPreconditionError("turn log " + ref + " is not open");
  return w->AppendAnswer(answer);
}

Status JournalStore::AppendTurnOutcome(const std::string& ref, const journal::TurnLogOutcome& outcome) {
  auto w = Writer(ref);
  if (!w) return FailedPreconditionError("turn log " + ref + " is not open");
  return w->AppendOutcome(outcome);
}

Status JournalStore::RemoveTurnLog(const std::string& ref) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    turn_logs_.erase(ref);
  }
  return journal::RemoveTurnLog(shard_dir_ + "/" + ref);
}

}  // namespace seragen::pipeline
