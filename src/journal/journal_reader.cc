#include "seragen/journal/journal_reader.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "seragen/base/file_util.h"

namespace seragen::journal {
namespace {

Status AtLine(const Status& s, const std::string& name, std::size_t line_number) {
  return Status(s.code(), fmt::format("journal {} line {}: {}", name, line_number, s.message()));
}

// The rules of the header comment, applied one line at a time.
class LineScanner {
 public:
  LineScanner(const std::string& name, const RecordSink& sink, LoadedJournal* out)
      : name_(name), sink_(sink), out_(out) {}

  // One line without its '\n', ending at byte offset `end`. Returns false when
  // scanning stops (a torn last line); an error for a damaged journal.
  Result<bool> Line(std::string_view text, std::uint64_t end, bool terminated, bool last) {
    const std::size_t number = ++lines_;
    if (!terminated) return false;  // only the last line can be unterminated: torn
    Status status = number == 1 ? Header(text) : Entry(text);
    if (!status.ok()) {
      if (status.code() == StatusCode::kDataLoss && last) return false;  // torn last line
      if (status.code() == StatusCode::kDataLoss) {
        return DataLossError(
            fmt::format("journal {} line {} is damaged ({}) and is followed by more lines; the journal "
                        "cannot be trusted past line {}. Move it aside, or truncate it to its first {} "
                        "lines to resume from there",
                        name_, number, status.message(), number - 1, number - 1));
      }
      return AtLine(status, name_, number);
    }
    out_->valid_bytes = end;
    return true;
  }

  // After the last line: where the torn tail, if any, starts.
  void Finish(std::uint64_t total_bytes) {
    out_->dropped_tail_bytes = total_bytes - out_->valid_bytes;
    if (out_->dropped_tail_bytes > 0) out_->dropped_tail_line = lines_;
  }

 private:
  Status Header(std::string_view text) {
    auto header = DecodeHeader(text);
    if (!header.ok()) return header.status();
    out_->has_header = true;
    out_->header = *header;
    out_->effective_config_hash = header->config_hash;
    return Status::Ok();
  }

  Status Entry(std::string_view text) {
    auto entry = DecodeEntry(text);
    if (!entry.ok()) return entry.status();
    if (entry->record) sink_(std::move(*entry->record));
    if (entry->config_change) {
      out_->effective_config_hash = entry->config_change->to;
      out_->config_changes.push_back(std::move(*entry->config_change));
    }
    return Status::Ok();
  }

  const std::string& name_;
  const RecordSink& sink_;
  LoadedJournal* out_;
  std::size_t lines_ = 0;
};

// Feeds the lines of `bytes` (starting at file offset `base`) to the scanner,
// all but a last one that may continue in bytes not read yet; returns how
// many bytes it consumed. `at_end`: nothing follows these bytes.
Result<std::size_t> ScanLines(std::string_view bytes, std::uint64_t base, bool at_end, LineScanner* scanner,
                              bool* stopped) {
  std::size_t offset = 0;
  while (offset < bytes.size() && !*stopped) {
    std::size_t nl = bytes.find('\n', offset);
    const bool terminated = nl != std::string_view::npos;
    const std::size_t end = terminated ? nl + 1 : bytes.size();
    // A line is known to be the last only when nothing can follow it.
    if (!at_end && (!terminated || end == bytes.size())) break;
    SG_ASSIGN_OR_RETURN(bool go_on, scanner->Line(bytes.substr(offset, (terminated ? nl : end) - offset), base + end,
                                                  terminated, at_end && end == bytes.size()));
    *stopped = !go_on;
    offset = end;
  }
  return offset;
}

}  // namespace

Result<LoadedJournal> ScanJournal(std::string_view bytes, const std::string& name, const RecordSink& sink) {
  LoadedJournal out;
  LineScanner scanner(name, sink, &out);
  bool stopped = false;
  SG_RETURN_IF_ERROR(ScanLines(bytes, 0, true, &scanner, &stopped).status());
  scanner.Finish(bytes.size());
  return out;
}

Result<LoadedJournal> ParseJournal(std::string_view bytes, const std::string& name) {
  std::vector<JournalRecord> records;
  SG_ASSIGN_OR_RETURN(LoadedJournal out,
                      ScanJournal(bytes, name, [&records](JournalRecord&& r) { records.push_back(std::move(r)); }));
  out.records = std::move(records);
  return out;
}

Result<LoadedJournal> StreamJournal(const std::string& path, const RecordSink& sink) {
  SG_ASSIGN_OR_RETURN(UniqueFd fd, OpenRegularFile(path, kMaxJournalBytes));
  LoadedJournal out;
  LineScanner scanner(path, sink, &out);
  constexpr std::size_t kChunk = 1 << 20;
  std::string buffer;
  std::uint64_t base = 0;  // file offset of buffer[0]
  bool stopped = false, at_end = false;
  while (!at_end && !stopped) {
    std::size_t have = buffer.size();
    buffer.resize(have + kChunk);
    ssize_t n = 0;
    do {
      n = ::read(fd.get(), buffer.data() + have, kChunk);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return IoError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    buffer.resize(have + static_cast<std::size_t>(n));
    at_end = n == 0;
    if (base + buffer.size() > kMaxJournalBytes) {
      return ResourceExhaustedError(fmt::format("{} grew past {} bytes while being read", path, kMaxJournalBytes));
    }
    SG_ASSIGN_OR_RETURN(std::size_t used, ScanLines(buffer, base, at_end, &scanner, &stopped));
    buffer.erase(0, used);
    base += used;
  }
  scanner.Finish(base + buffer.size());
  return out;
}

Result<LoadedJournal> LoadJournal(const std::string& path) {
  SG_ASSIGN_OR_RETURN(std::string bytes, ReadRegularFile(path, kMaxJournalBytes));
  return ParseJournal(bytes, path);
}

}  // namespace seragen::journal
