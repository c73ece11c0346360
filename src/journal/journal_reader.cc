#include "seragen/journal/journal_reader.h"

#include <fmt/format.h>

#include "seragen/base/file_util.h"

namespace seragen::journal {
namespace {

struct Line {
  std::string_view text;  // without the '\n'
  std::uint64_t end = 0;  // offset just past the line (and its '\n' if any)
  bool terminated = false;
};

std::vector<Line> SplitLines(std::string_view bytes) {
  std::vector<Line> lines;
  std::uint64_t offset = 0;
  while (offset < bytes.size()) {
    std::size_t nl = bytes.find('\n', offset);
    Line line;
    if (nl == std::string_view::npos) {
      line.text = bytes.substr(offset);
      line.end = bytes.size();
    } else {
      line.text = bytes.substr(offset, nl - offset);
      line.end = nl + 1;
      line.terminated = true;
    }
    offset = line.end;
    lines.push_back(line);
  }
  return lines;
}

Status AtLine(const Status& s, const std::string& name, std::size_t line_number) {
  return Status(s.code(), fmt::format("journal {} line {}: {}", name, line_number, s.message()));
}

}  // namespace

Result<LoadedJournal> ParseJournal(std::string_view bytes, const std::string& name) {
  LoadedJournal out;
  std::vector<Line> lines = SplitLines(bytes);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& line = lines[i];
    const std::size_t number = i + 1;
    const bool last = i + 1 == lines.size();
    if (!line.terminated) break;  // only the last line can be unterminated: torn
    Status status;
    if (i == 0) {
      auto header = DecodeHeader(line.text);
      if (header.ok()) {
        out.has_header = true;
        out.header = *header;
        out.effective_config_hash = header->config_hash;
      } else {
        status = header.status();
      }
    } else {
      auto entry = DecodeEntry(line.text);
      if (entry.ok()) {
        if (entry->record) out.records.push_back(std::move(*entry->record));
        if (entry->config_change) {
          out.effective_config_hash = entry->config_change->to;
          out.config_changes.push_back(std::move(*entry->config_change));
        }
      } else {
        status = entry.status();
      }
    }
    if (!status.ok()) {
      if (status.code() == StatusCode::kDataLoss && last) break;  // torn last line
      if (status.code() == StatusCode::kDataLoss) {
        return DataLossError(
            fmt::format("journal {} line {} is damaged ({}) and is followed by more lines; the journal "
                        "cannot be trusted past line {}. Move it aside, or truncate it to its first {} "
                        "lines to resume from there",
                        name, number, status.message(), number - 1, number - 1));
      }
      return AtLine(status, name, number);
    }
    out.valid_bytes = line.end;
  }
  out.dropped_tail_bytes = bytes.size() - out.valid_bytes;
  if (out.dropped_tail_bytes > 0) {
    // The torn line is the one starting at valid_bytes.
    std::size_t number = 1;
    for (std::uint64_t k = 0; k < out.valid_bytes; ++k) number += bytes[k] == '\n';
    out.dropped_tail_line = number;
  }
  return out;
}

Result<LoadedJournal> LoadJournal(const std::string& path) {
  SG_ASSIGN_OR_RETURN(std::string bytes, ReadRegularFile(path, kMaxJournalBytes));
  return ParseJournal(bytes, path);
}

}  // namespace seragen::journal
