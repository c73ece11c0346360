// Journal: the single writer of RUN_DIR/shard-K/journal.jsonl (docs/DESIGN.md §5).
//
// Open() takes the shard lock (see shard_lock.h) for the Journal's lifetime,
// creates the journal with its header or loads the existing one, checks that
// it belongs to this shard and configuration, and cuts off a torn last line so
// that the next append starts on a fresh line.
//
// Durability contract of Append(): the full line (record + '\n') is built in
// memory and handed to one write() on an O_APPEND descriptor, then
// fdatasync() runs before Append returns OK. A record is therefore either
// wholly in the file after a crash or (at worst) a torn last line that the
// reader drops. If a write fails part-way, the file is truncated back to the
// previous end; if that or fdatasync fails, the journal refuses further
// appends (kIoError) rather than risk gluing records together.
// Callers write the files a record refers to first (WriteResultFile in
// result_files.h: temp, fsync, rename, fsync dir) and append the record after.
//
// Thread-safety: Append and Close may be called from any thread; appends are
// serialised. A signal handler must not call Append (it allocates and locks);
// the pipeline stops scheduling and lets in-flight work append normally.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "seragen/base/clock.h"
#include "seragen/base/result.h"
#include "seragen/base/unique_fd.h"
#include "seragen/journal/journal_reader.h"
#include "seragen/journal/record.h"
#include "seragen/journal/run_paths.h"
#include "seragen/journal/shard_lock.h"

namespace seragen::journal {

struct JournalOptions {
  std::string shard_dir;    // RUN_DIR/shard-K; created when missing
  int shard = 0;            // K, 0-based
  int shards = 1;           // N
  std::string config_hash;  // hash of the resolved config of this invocation
  // When the journal's config hash differs: false refuses to open
  // (kFailedPrecondition); true continues and appends a config_change record.
  // Call CheckConfigCompatible (config_diff.h) first to show the user the list
  // of changed keys.
  bool allow_config_change = false;
  const Clock* clock = nullptr;  // for timestamps; nullptr = SystemClock()
  // With such a change: the RUN_DIR-relative copy of the replaced config
  // (ConfigHistoryName), named in the config_change record.
  std::string previous_config;
};

// Paths inside a shard directory: JournalPath, LockPath (run_paths.h).

class Journal {
 public:
  // Errors: kFailedPrecondition when the shard is locked by another writer, the
  // journal belongs to another shard layout, or the config changed without
  // allow_config_change; whatever LoadJournal returns for a damaged journal;
  // kIoError for filesystem failures. Every message names the journal path.
  static Result<std::unique_ptr<Journal>> Open(const JournalOptions& options);

  ~Journal();  // Close()
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // What the journal held when opened (torn tail already dropped and cut off;
  // dropped_tail_* tell whether that happened). Records appended later are not
  // added here.
  const LoadedJournal& existing() const { return existing_; }
  const std::string& path() const { return path_; }

  // Appends one record durably (see the contract above). Fills record.at from
  // the clock when empty. kInvalidArgument for a bad record (nothing written),
  // kFailedPrecondition after Close, kIoError when the disk write fails.
  Status Append(const JournalRecord& record);

  // Number of records appended through this object.
  std::uint64_t appended() const;

  // Closes the file and releases the shard lock. Idempotent.
  void Close();

 private:
  Journal() = default;
  Status AppendLine(std::string line);

  std::string path_;
  const Clock* clock_ = nullptr;
  LoadedJournal existing_;
  std::optional<ShardLock> lock_;

  mutable std::mutex mu_;
  UniqueFd fd_;                 // O_APPEND; guarded by mu_
  std::uint64_t size_ = 0;      // file size after the last good append; guarded by mu_
  std::uint64_t appended_ = 0;  // guarded by mu_
  Status broken_;               // non-OK once the file state is uncertain; guarded by mu_
};

}  // namespace seragen::journal
