// One durable append to an append-only file (journal, turn log): the whole
// line or nothing, then fdatasync. Internal to the journal module.
#pragma once

#include <cstdint>
#include <string_view>

namespace seragen::journal {

struct DurableAppend {
  enum Kind {
    kOk,              // written and synced
    kWriteFailed,     // nothing of the line remains (write_errno says why)
    kTruncateFailed,  // a partial line may remain: the file's end is unknown
    kSyncFailed,      // written, but fdatasync failed (sync_errno): page state unknown
  } kind = kOk;
  int write_errno = 0;
  int truncate_errno = 0;
  int sync_errno = 0;
};

// Appends `line` at the end of `fd`, which is `size` bytes long; a short
// write is cut back to `size`. Not thread-safe for one fd: callers serialize.
DurableAppend AppendDurably(int fd, std::uint64_t size, std::string_view line);

}  // namespace seragen::journal
