#include "cli/terminal_stream.h"

#include "seragen/base/terminal_text.h"

namespace seragen::cli {

TerminalSafeErr::TerminalSafeErr() : original_(std::cerr.rdbuf()), buffer_(original_) { std::cerr.rdbuf(&buffer_); }

TerminalSafeErr::~TerminalSafeErr() {
  buffer_.Drain(/*all=*/true);
  std::cerr.rdbuf(original_);
}

// Whole lines only (a UTF-8 sequence is never cut), unless `all`.
void TerminalSafeErr::Buffer::Drain(bool all) {
  const std::size_t end = all ? pending_.size() : pending_.rfind('\n') + 1;
  if (end == 0 || pending_.empty()) return;
  const std::string safe = TerminalSafe(std::string_view(pending_).substr(0, end), end);
  out_->sputn(safe.data(), static_cast<std::streamsize>(safe.size()));
  out_->pubsync();
  pending_.erase(0, end);
}

TerminalSafeErr::Buffer::int_type TerminalSafeErr::Buffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  pending_ += traits_type::to_char_type(c);
  if (pending_.size() > (1u << 16)) Drain(/*all=*/true);  // a line without end: bounded
  return c;
}

std::streamsize TerminalSafeErr::Buffer::xsputn(const char* s, std::streamsize n) {
  pending_.append(s, static_cast<std::size_t>(n));
  if (pending_.size() > (1u << 16)) Drain(/*all=*/true);
  return n;
}

int TerminalSafeErr::Buffer::sync() {
  Drain(/*all=*/false);
  return 0;
}

}  // namespace seragen::cli
