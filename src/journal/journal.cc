#include "seragen/journal/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "journal/durable_append.h"
#include "seragen/base/file_util.h"
#include "seragen/journal/result_files.h"

namespace seragen::journal {
namespace {

Status Errno(std::string_view what, const std::string& path) {
  return IoError(fmt::format("{} {}: {}", what, path, std::strerror(errno)));
}

}  // namespace

Result<std::unique_ptr<Journal>> Journal::Open(const JournalOptions& o) {
  if (o.shards < 1 || o.shard < 0 || o.shard >= o.shards) {
    return InvalidArgumentError(fmt::format("invalid shard {}/{}", o.shard, o.shards));
  }
  if (o.config_hash.empty()) return InvalidArgumentError("journal needs the run's config hash");
  SG_RETURN_IF_ERROR(MakeDirsDurable(o.shard_dir));
  const std::string what = fmt::format("shard {}/{} ({})", o.shard, o.shards, o.shard_dir);
  SG_ASSIGN_OR_RETURN(ShardLock lock, ShardLock::Acquire(LockPath(o.shard_dir), what));

  std::unique_ptr<Journal> j(new Journal());
  j->path_ = JournalPath(o.shard_dir);
  j->clock_ = o.clock != nullptr ? o.clock : &SystemClock();
  j->lock_.emplace(std::move(lock));

  auto loaded = LoadJournal(j->path_);
  if (!loaded.ok() && loaded.status().code() != StatusCode::kNotFound) return loaded.status();
  bool config_changed = false;
  std::string previous_hash;
  if (loaded.ok() && loaded->has_header) {
    const JournalHeader& h = loaded->header;
    if (h.shard != o.shard || h.shards != o.shards) {
      return FailedPreconditionError(
          fmt::format("journal {} belongs to shard {}/{}, but this invocation is shard {}/{}; a run keeps "
                      "its shard count (use the original --shard K/N or array size)",
                      j->path_, h.shard, h.shards, o.shard, o.shards));
    }
    if (loaded->effective_config_hash != o.config_hash) {
      if (!o.allow_config_change) {
        return FailedPreconditionError(
            fmt::format("journal {} was written with config hash {}, but the current config hashes to {}; "
                        "the configuration changed since this run started",
                        j->path_, loaded->effective_config_hash, o.config_hash));
      }
      config_changed = true;
      previous_hash = loaded->effective_config_hash;
    }
    j->existing_ = std::move(*loaded);
  } else {
    // New journal, or only a torn header survived: (re)create it atomically so
    // that journal.jsonl never exists without a complete header line.
    JournalHeader header;
    header.config_hash = o.config_hash;
    header.shard = o.shard;
    header.shards = o.shards;
    header.created = FormatIso8601(j->clock_->WallNow());
    std::string text = EncodeHeader(header) + "\n";
    SG_RETURN_IF_ERROR(WriteFileAtomic(j->path_, text));
    j->existing_.has_header = true;
    j->existing_.header = header;
    j->existing_.effective_config_hash = o.config_hash;
    j->existing_.valid_bytes = text.size();
    if (loaded.ok()) {
      j->existing_.dropped_tail_bytes = loaded->dropped_tail_bytes;
      j->existing_.dropped_tail_line = loaded->dropped_tail_line;
    }
  }

  j->fd_.reset(::open(j->path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  if (!j->fd_.valid()) return Errno("cannot open journal", j->path_);
  struct stat st {};
  if (::fstat(j->fd_.get(), &st) != 0) return Errno("cannot stat journal", j->path_);
  if (static_cast<std::uint64_t>(st.st_size) != j->existing_.valid_bytes) {
    // Cut off the torn last line so the next record starts on a fresh line.
    if (::ftruncate(j->fd_.get(), static_cast<off_t>(j->existing_.valid_bytes)) != 0 ||
        ::fdatasync(j->fd_.get()) != 0) {
      return Errno("cannot cut the torn last line of journal", j->path_);
    }
  }
  j->size_ = j->existing_.valid_bytes;

  if (config_changed) {
    ConfigHashChange change{previous_hash, o.config_hash, FormatIso8601(j->clock_->WallNow()), o.previous_config};
    std::lock_guard<std::mutex> guard(j->mu_);
    SG_RETURN_IF_ERROR(j->AppendLine(EncodeConfigHashChange(change) + "\n"));
  }
  return j;
}

Journal::~Journal() { Close(); }

Status Journal::Append(const JournalRecord& record) {
  std::string line;
  if (record.at.empty()) {
    JournalRecord stamped = record;
    stamped.at = FormatIso8601(clock_->WallNow());
    SG_ASSIGN_OR_RETURN(line, EncodeRecord(stamped));
  } else {
    SG_ASSIGN_OR_RETURN(line, EncodeRecord(record));
  }
  line.push_back('\n');
  std::lock_guard<std::mutex> guard(mu_);
  SG_RETURN_IF_ERROR(AppendLine(std::move(line)));
  ++appended_;
  return Status::Ok();
}

// Requires mu_ held (or exclusive access during Open).
Status Journal::AppendLine(std::string line) {
  if (!broken_.ok()) return broken_;
  if (!fd_.valid()) return FailedPreconditionError("journal " + path_ + " is closed");
  const DurableAppend out = AppendDurably(fd_.get(), size_, line);
  const char* write_error = std::strerror(out.write_errno);
  switch (out.kind) {
    case DurableAppend::kOk: break;
    case DurableAppend::kWriteFailed:
      return IoError(fmt::format("cannot append to journal {}: {}", path_, write_error));
    case DurableAppend::kTruncateFailed:
      broken_ =
          IoError(fmt::format("journal {} may end in a partial record (write failed: {}; undo failed: {}); "
                              "no further records are written",
                              path_, write_error, std::strerror(out.truncate_errno)));
      return broken_;
    case DurableAppend::kSyncFailed:
      // After a failed fsync the page state is unknown; never append again.
      errno = out.sync_errno;
      broken_ = Errno("cannot fdatasync journal (no further records are written)", path_);
      return broken_;
  }
  size_ += line.size();
  return Status::Ok();
}

std::uint64_t Journal::appended() const {
  std::lock_guard<std::mutex> guard(mu_);
  return appended_;
}

void Journal::Close() {
  std::lock_guard<std::mutex> guard(mu_);
  fd_.reset();
  lock_.reset();
}

}  // namespace seragen::journal
