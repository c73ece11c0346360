// Reading a journal file, tolerant of a crash during the last append.
//
// Rules (docs/JOURNAL.md):
//  * A line is complete only when it ends with '\n' (the writer puts record and
//    newline into one write, so a missing newline means the write was cut).
//  * The last line is "torn" when it is unterminated or is not a complete JSON
//    object; a torn last line is normal after a crash and is dropped silently
//    (reported in LoadedJournal, not an error). At most one line can be in
//    flight at a crash, so only the last line gets this treatment.
//  * Any earlier line that is not a complete JSON object is data loss:
//    kDataLoss naming the file and the 1-based line number.
//  * A complete JSON line that breaks the schema (unknown stage or record
//    type, wrong field types) is kParseError naming file and line, wherever
//    it is: it was written whole, so it is not a crash artifact.
//  * Line 1 must be the header; a different "format" is kParseError, a
//    different "version" is kFailedPrecondition.
//  * An empty file, or one holding only a torn header, loads as "no header".
//
// Pure parsing plus one file read; thread-safe; does not lock the shard
// (readers such as `seragen status` may read while a writer appends).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/journal/record.h"

namespace seragen::journal {

struct LoadedJournal {
  bool has_header = false;
  JournalHeader header;
  std::vector<JournalRecord> records;            // task records, in file order
  std::vector<ConfigHashChange> config_changes;  // in file order
  // The header's config hash, or the `to` of the last config change.
  std::string effective_config_hash;
  std::uint64_t valid_bytes = 0;         // length of the prefix of good lines
  std::uint64_t dropped_tail_bytes = 0;  // bytes after it (a torn last line)
  std::size_t dropped_tail_line = 0;     // 1-based line number of the torn line; 0 if none
};

// Receives each task record of a journal, in file order.
using RecordSink = std::function<void(JournalRecord&&)>;

// `name` is used in error messages (normally the file path).
Result<LoadedJournal> ParseJournal(std::string_view bytes, const std::string& name);
// As ParseJournal, but each record goes to `sink` instead of `records`.
Result<LoadedJournal> ScanJournal(std::string_view bytes, const std::string& name, const RecordSink& sink);

// The largest journal LoadJournal reads.
inline constexpr std::uint64_t kMaxJournalBytes = 4ull << 30;

// Reads and parses `path`; kNotFound when the file does not exist. Only a
// regular file (ReadRegularFile: no symbolic link, no FIFO or device).
Result<LoadedJournal> LoadJournal(const std::string& path);
// As LoadJournal, but reads the file in pieces and hands each record to
// `sink` as it is decoded (`records` stays empty): memory stays bounded by
// the longest line, not the journal. Reads to the end of file as it finds it.
Result<LoadedJournal> StreamJournal(const std::string& path, const RecordSink& sink);

}  // namespace seragen::journal
