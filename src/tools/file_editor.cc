#include "seragen/tools/file_editor.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

#include "seragen/base/unique_fd.h"
#include "seragen/base/utf8.h"
#include "seragen/base/utf8_chars.h"

namespace seragen::tools {
namespace {

// Byte offsets where each line starts. "a\nb" and "a\nb\n" both have 2
// lines; "" has none.
std::vector<std::size_t> LineStarts(const std::string& content) {
  std::vector<std::size_t> starts;
  if (content.empty()) return starts;
  starts.push_back(0);
  for (std::size_t i = 0; i < content.size(); ++i) {
    if (content[i] == '\n' && i + 1 < content.size()) starts.push_back(i + 1);
  }
  return starts;
}

// Line `index` (0-based) without its line ending.
std::string_view LineText(const std::string& content, const std::vector<std::size_t>& starts, std::size_t index) {
  std::size_t begin = starts[index];
  std::size_t end = index + 1 < starts.size() ? starts[index + 1] : content.size();
  if (end > begin && content[end - 1] == '\n') --end;
  if (end > begin && content[end - 1] == '\r') --end;
  return std::string_view(content).substr(begin, end - begin);
}

// 1-based line number of byte offset `pos`.
long long LineOfOffset(const std::vector<std::size_t>& starts, std::size_t pos) {
  auto it = std::upper_bound(starts.begin(), starts.end(), pos);
  return static_cast<long long>(it - starts.begin());
}

bool UsesCrlf(const std::string& content) {
  std::size_t crlf = 0, bare = 0;
  for (std::size_t i = 0; i < content.size(); ++i) {
    if (content[i] != '\n') continue;
    if (i > 0 && content[i - 1] == '\r') ++crlf;
    else ++bare;
  }
  return crlf > 0 && crlf >= bare;
}

// Bare "\n" → "\r\n" (existing "\r\n" untouched).
std::string ToCrlf(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r')) out += '\r';
    out += text[i];
  }
  return out;
}

std::string NumberedLine(long long number, std::string_view text) {
  std::string n = std::to_string(number);
  std::string out(n.size() < 6 ? 6 - n.size() : 0, ' ');
  out += n;
  out += '\t';
  out += RepairUtf8(text);
  return out;
}

std::vector<std::size_t> FindAll(const std::string& haystack, const std::string& needle) {
  std::vector<std::size_t> found;
  for (std::size_t pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) {
    found.push_back(pos);
  }
  return found;
}

long long CountLines(std::string_view text) {
  if (text.empty()) return 0;
  long long n = std::count(text.begin(), text.end(), '\n');
  return text.back() == '\n' ? n : n + 1;
}

Result<std::string> ReadWhole(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return IoError(std::strerror(errno));
  std::string data;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(std::strerror(errno));
    if (n == 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  return data;
}

Status WriteAllTo(int fd, const std::string& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

struct FileEditor::Loaded {
  std::string host;
  std::string visible;
  std::string content;
};

FileEditor::FileEditor(WorkspacePaths paths, const ToolMessages* messages, ToolOptions options)
    : paths_(std::move(paths)), messages_(messages), options_(std::move(options)) {}

Result<std::string> FileEditor::Msg(std::string_view key, const TemplateValues& values) const {
  // A path comes from the agent (or is built from what it sent): echo a bounded part.
  auto path = values.find("path");
  if (path == values.end() || path->second.size() <= kMaxEchoedPathBytes) return messages_->Render(key, values);
  TemplateValues clipped = values;
  clipped["path"] = ClipEcho(path->second, kMaxEchoedPathBytes);
  return messages_->Render(key, clipped);
}

Result<std::string> FileEditor::PathRefusal(const std::string& path, const Status& status) const {
  if (path.find('\0') != std::string::npos) return Msg("path_nul", {{"root", paths_.visible_root()}});
  switch (status.code()) {
    case StatusCode::kInvalidArgument: return Msg("path_empty", {{"root", paths_.visible_root()}});
    case StatusCode::kPermissionDenied:
      return Msg("path_outside", {{"path", RepairUtf8(path)}, {"root", paths_.visible_root()}});
    case StatusCode::kOutOfRange: return Msg("path_too_many_links", {{"path", RepairUtf8(path)}});
    default: return Msg("path_not_found", {{"path", RepairUtf8(path)}});
  }
}

Result<std::optional<FileEditor::Loaded>> FileEditor::LoadForEdit(const std::string& path, const char* command,
                                                                  std::string* refusal) {
  auto resolved = paths_.Resolve(path);
  if (!resolved.ok()) {
    SG_ASSIGN_OR_RETURN(*refusal, PathRefusal(path, resolved.status()));
    return std::optional<Loaded>();
  }
  if (!resolved->exists) {
    SG_ASSIGN_OR_RETURN(*refusal, Msg("path_not_found", {{"path", resolved->visible}}));
    return std::optional<Loaded>();
  }
  struct stat st;
  if (::stat(resolved->host.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    SG_ASSIGN_OR_RETURN(*refusal, Msg("not_a_file", {{"path", resolved->visible}, {"command", command}}));
    return std::optional<Loaded>();
  }
  if (static_cast<std::size_t>(st.st_size) > options_.max_file_bytes) {
    SG_ASSIGN_OR_RETURN(*refusal, Msg("file_too_large", {{"path", resolved->visible},
                                                         {"size", std::to_string(st.st_size)},
                                                         {"limit", std::to_string(options_.max_file_bytes)}}));
    return std::optional<Loaded>();
  }
  auto content = ReadWhole(resolved->host);
  if (!content.ok()) {
    SG_ASSIGN_OR_RETURN(
        *refusal,
        Msg("io_error", {{"action", "read"}, {"path", resolved->visible}, {"error", content.status().message()}}));
    return std::optional<Loaded>();
  }
  if (content->find('\0') != std::string::npos) {
    SG_ASSIGN_OR_RETURN(*refusal, Msg("edit_binary", {{"path", resolved->visible}}));
    return std::optional<Loaded>();
  }
  return std::optional<Loaded>(Loaded{resolved->host, resolved->visible, std::move(content).value()});
}

Status FileEditor::WriteExisting(const std::string& host, const std::string& content) {
  UniqueFd fd(::open(host.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid() && errno == ENOENT) {
    fd.reset(::open(host.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (fd.valid()) {
      struct stat root;
      if (::stat(paths_.host_root().c_str(), &root) == 0) {
        if (::fchown(fd.get(), root.st_uid, root.st_gid) != 0) { /* best effort */
        }
      }
    }
  }
  if (!fd.valid()) return IoError(std::strerror(errno));
  return WriteAllTo(fd.get(), content);
}

void FileEditor::Remember(const std::string& host, std::optional<std::string> previous) {
  auto bytes = [](const std::optional<std::string>& c) { return c ? c->size() : 0; };
  auto& stack = history_[host];
  history_bytes_ += bytes(previous);
  stack.push_back(std::move(previous));
  history_order_.push_back(host);
  if (stack.size() > options_.undo_depth) {
    history_bytes_ -= bytes(stack.front());
    stack.erase(stack.begin());
  }
  // Forget the oldest edits (across files) until the total fits; never the one just made.
  while (history_bytes_ > options_.undo_max_bytes && history_order_.size() > 1) {
    std::string oldest = std::move(history_order_.front());
    history_order_.pop_front();
    auto it = history_.find(oldest);
    if (it == history_.end() || it->second.empty()) continue;
    if (it->first == host && it->second.size() == 1) {  // only the edit just made is left
      history_order_.push_front(std::move(oldest));
      break;
    }
    history_bytes_ -= bytes(it->second.front());
    it->second.erase(it->second.begin());
  }
}

std::size_t FileEditor::UndoDepth(const std::string& host_path) const {
  auto it = history_.find(host_path);
  return it == history_.end() ? 0 : it->second.size();
}

Result<std::string> FileEditor::Snippet(const std::string& content, long long first_line, long long last_line) const {
  auto starts = LineStarts(content);
  const long long total = static_cast<long long>(starts.size());
  first_line = std::max(1LL, first_line);
  last_line = std::min(total, last_line);
  // Held to view's character cap: an edit of a long line (or many lines)
  // shows a part and says so, never megabytes.
  const std::size_t cap = std::max<std::size_t>(options_.view_max_chars, 1);
  std::string out;
  bool clipped = false;
  for (long long n = first_line; n <= last_line && !clipped; ++n) {
    std::string_view text = LineText(content, starts, static_cast<std::size_t>(n - 1));
    // Never formats more of a line than the cap can show.
    std::string line = NumberedLine(n, text.substr(0, Utf8SafePrefixLength(text, cap)));
    const std::size_t room = out.empty() ? cap : (out.size() + 1 < cap ? cap - out.size() - 1 : 0);
    if (!out.empty() && line.size() > room) {
      clipped = true;
      break;
    }
    if (!out.empty()) out += '\n';
    clipped = line.size() > room || text.size() > cap;
    out += line.substr(0, Utf8SafePrefixLength(line, room));
  }
  if (!clipped) return out;
  SG_ASSIGN_OR_RETURN(std::string note, Msg("edit_snippet_clipped", {{"max_chars", std::to_string(cap)}}));
  return out + "\n" + note;
}

Result<std::string> FileEditor::View(const std::string& path, const std::optional<std::vector<long long>>& view_range) {
  auto resolved = paths_.Resolve(path);
  if (!resolved.ok()) return PathRefusal(path, resolved.status());
  if (!resolved->exists) return Msg("path_not_found", {{"path", resolved->visible}});
  struct stat st;
  if (::stat(resolved->host.c_str(), &st) != 0) {
    return Msg("io_error", {{"action", "read"}, {"path", resolved->visible}, {"error", std::strerror(errno)}});
  }
  if (S_ISDIR(st.st_mode)) {
    if (view_range) return Msg("view_range_on_directory", {{"path", resolved->visible}});
    return ViewDirectory(resolved->host, resolved->visible);
  }
  if (!S_ISREG(st.st_mode)) return Msg("not_a_file", {{"path", resolved->visible}, {"command", "view"}});
  if (static_cast<std::size_t>(st.st_size) > options_.max_file_bytes) {
    return Msg("file_too_large", {{"path", resolved->visible},
                                  {"size", std::to_string(st.st_size)},
                                  {"limit", std::to_string(options_.max_file_bytes)}});
  }
  auto content = ReadWhole(resolved->host);
  if (!content.ok()) {
    return Msg("io_error", {{"action", "read"}, {"path", resolved->visible}, {"error", content.status().message()}});
  }
  const std::string& text = *content;
  if (text.find('\0') != std::string::npos) {
    return Msg("view_binary", {{"path", resolved->visible}, {"size", std::to_string(text.size())}});
  }
  if (text.empty()) return Msg("view_empty_file", {{"path", resolved->visible}});
  auto starts = LineStarts(text);
  const long long total = static_cast<long long>(starts.size());
  long long first = 1, last = total;
  std::string notes;
  if (view_range) {
    const auto& r = *view_range;
    std::string shown = "[";
    for (std::size_t i = 0; i < r.size(); ++i) shown += (i ? ", " : "") + std::to_string(r[i]);
    shown += "]";
    if (r.size() != 2) return Msg("view_range_malformed", {{"range", shown}});
    first = r[0];
    last = r[1] == -1 ? total : r[1];
    if (first < 1 || first > total || last < first) {
      return Msg("view_range_out_of_bounds", {{"range", shown}, {"total", std::to_string(total)}});
    }
    if (last > total) {
      SG_ASSIGN_OR_RETURN(std::string clamped, Msg("view_range_clamped", {{"total", std::to_string(total)}}));
      notes += "\n" + clamped;
      last = total;
    }
  }
  std::string body;
  std::size_t body_chars = 0;  // the cap counts characters (code points), as SWE-agent's tools do
  long long shown_last = first - 1;
  for (long long n = first; n <= last; ++n) {
    std::string line = NumberedLine(n, LineText(text, starts, static_cast<std::size_t>(n - 1)));
    std::size_t line_chars = Utf8CharCount(line);
    if (!body.empty() && body_chars + 1 + line_chars > options_.view_max_chars) break;
    if (static_cast<std::size_t>(n - first) >= std::max<std::size_t>(options_.view_max_lines, 1)) break;
    if (body.empty() && line_chars > options_.view_max_chars) {
      line.resize(Utf8PrefixBytes(line, options_.view_max_chars));
      line_chars = options_.view_max_chars;
    }
    if (!body.empty()) {
      body += '\n';
      ++body_chars;
    }
    body += line;
    body_chars += line_chars;
    shown_last = n;
  }
  if (shown_last < last) {
    const long long next = shown_last + 1;
    SG_ASSIGN_OR_RETURN(std::string clipped,
                        Msg("view_clipped", {{"last_line", std::to_string(shown_last)},
                                             {"total", std::to_string(total)},
                                             {"next_line", std::to_string(next)},
                                             {"max_chars", std::to_string(options_.view_max_chars)},
                                             {"max_lines", std::to_string(options_.view_max_lines)}}));
    notes += "\n" + clipped;
  }
  if (!IsValidUtf8(text)) {
    SG_ASSIGN_OR_RETURN(std::string bad, Msg("view_invalid_utf8", {}));
    notes += "\n" + bad;
  }
  Result<std::string> main =
      view_range ? Msg("view_file_range", {{"path", resolved->visible},
                                           {"first", std::to_string(first)},
                                           {"last", std::to_string(last)},
                                           {"total", std::to_string(total)},
                                           {"content", body}})
                 : Msg("view_file", {{"path", resolved->visible}, {"total", std::to_string(total)}, {"content", body}});
  if (!main.ok()) return main;
  return *main + notes;
}

Result<std::string> FileEditor::ViewDirectory(const std::string& host, const std::string& visible) {
  std::vector<std::string> entries;
  // Depth-first, sorted, two levels, hidden entries skipped.
  std::function<void(const std::string&, const std::string&, int)> walk =
      [&](const std::string& dir_host, const std::string& dir_visible, int depth) {
        DIR* d = ::opendir(dir_host.c_str());
        if (!d) return;
        std::vector<std::pair<std::string, bool>> children;
        while (dirent* e = ::readdir(d)) {
          std::string name = e->d_name;
          if (name.empty() || name[0] == '.') continue;
          struct stat st;
          bool is_dir = ::lstat((dir_host + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
          children.emplace_back(name, is_dir);
        }
        ::closedir(d);
        std::sort(children.begin(), children.end());
        for (const auto& [name, is_dir] : children) {
          const std::string child_visible = (dir_visible == "/" ? "" : dir_visible) + "/" + name;
          entries.push_back(RepairUtf8(child_visible) + (is_dir ? "/" : ""));
          if (is_dir && depth < 2) walk(dir_host + "/" + name, child_visible, depth + 1);
        }
      };
  walk(host, visible, 1);
  std::string listing;
  const std::size_t shown = std::min(entries.size(), options_.directory_max_entries);
  for (std::size_t i = 0; i < shown; ++i) {
    if (i) listing += '\n';
    listing += entries[i];
  }
  SG_ASSIGN_OR_RETURN(std::string out, Msg("view_directory", {{"path", visible}, {"listing", listing}}));
  if (shown < entries.size()) {
    SG_ASSIGN_OR_RETURN(
        std::string clipped,
        Msg("view_directory_clipped", {{"shown", std::to_string(shown)}, {"total", std::to_string(entries.size())}}));
    out += "\n" + clipped;
  }
  return out;
}

Result<std::string> FileEditor::Create(const std::string& path, const std::optional<std::string>& file_text) {
  if (!file_text) return Msg("missing_argument", {{"command", "create"}, {"argument", "file_text"}});
  auto resolved = paths_.Resolve(path);
  if (!resolved.ok()) return PathRefusal(path, resolved.status());
  if (resolved->exists) return Msg("create_exists", {{"path", resolved->visible}});
  struct stat root;
  const bool have_owner = ::stat(paths_.host_root().c_str(), &root) == 0;
  // Create missing parent directories, owned like the root of the copy.
  const std::string& host = resolved->host;
  for (std::size_t pos = paths_.host_root().size() + 1; pos < host.size(); ++pos) {
    pos = host.find('/', pos);
    if (pos == std::string::npos) break;
    const std::string dir = host.substr(0, pos);
    if (::mkdir(dir.c_str(), 0755) == 0) {
      if (have_owner && ::lchown(dir.c_str(), root.st_uid, root.st_gid) != 0) { /* best effort */
      }
    } else if (errno != EEXIST) {
      return Msg("io_error", {{"action", "create"}, {"path", resolved->visible}, {"error", std::strerror(errno)}});
    }
  }
  UniqueFd fd(::open(host.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    if (errno == EEXIST) return Msg("create_exists", {{"path", resolved->visible}});
    return Msg("io_error", {{"action", "create"}, {"path", resolved->visible}, {"error", std::strerror(errno)}});
  }
  if (have_owner && ::fchown(fd.get(), root.st_uid, root.st_gid) != 0) { /* best effort */
  }
  Status written = WriteAllTo(fd.get(), *file_text);
  fd.reset();
  if (!written.ok()) {
    return Msg("io_error", {{"action", "write"}, {"path", resolved->visible}, {"error", written.message()}});
  }
  Remember(host, std::nullopt);
  return Msg("create_done", {{"path", resolved->visible}, {"lines", std::to_string(CountLines(*file_text))}});
}

Result<std::string> FileEditor::StrReplace(const std::string& path, const std::optional<std::string>& old_str,
                                           const std::optional<std::string>& new_str) {
  if (!old_str) return Msg("missing_argument", {{"command", "str_replace"}, {"argument", "old_str"}});
  std::string refusal;
  SG_ASSIGN_OR_RETURN(auto loaded, LoadForEdit(path, "str_replace", &refusal));
  if (!loaded) return refusal;
  if (old_str->empty()) return Msg("str_replace_empty_old", {});
  std::string old_text = *old_str;
  std::string new_text = new_str.value_or("");
  if (old_text == new_text) return Msg("str_replace_same", {});
  const std::string& content = loaded->content;
  auto found = FindAll(content, old_text);
  if (found.empty() && old_text.find('\n') != std::string::npos && UsesCrlf(content)) {
    // The model saw the lines without their "\r"; match them as the file has them.
    std::string crlf_old = ToCrlf(old_text);
    found = FindAll(content, crlf_old);
    if (!found.empty()) {
      old_text = std::move(crlf_old);
      new_text = ToCrlf(new_text);
    }
  }
  if (found.empty()) return Msg("str_replace_no_match", {{"path", loaded->visible}});
  if (UsesCrlf(content)) new_text = ToCrlf(new_text);  // new lines end like the file's lines
  auto starts = LineStarts(content);
  if (found.size() > 1) {
    std::string lines;
    long long previous = -1;
    for (std::size_t pos : found) {
      long long line = LineOfOffset(starts, pos);
      if (line == previous) continue;
      lines += (lines.empty() ? "" : ", ") + std::to_string(line);
      previous = line;
    }
    return Msg("str_replace_multiple",
               {{"path", loaded->visible}, {"count", std::to_string(found.size())}, {"lines", lines}});
  }
  const std::size_t pos = found.front();
  std::string updated = content.substr(0, pos) + new_text + content.substr(pos + old_text.size());
  Status written = WriteExisting(loaded->host, updated);
  if (!written.ok()) {
    return Msg("io_error", {{"action", "write"}, {"path", loaded->visible}, {"error", written.message()}});
  }
  Remember(loaded->host, content);
  const long long start_line = LineOfOffset(starts, pos);
  const long long end_line = start_line + static_cast<long long>(std::count(new_text.begin(), new_text.end(), '\n'));
  const long long first = std::max(1LL, start_line - options_.snippet_context_lines);
  const long long last = end_line + options_.snippet_context_lines;
  SG_ASSIGN_OR_RETURN(std::string snippet, Snippet(updated, first, last));
  const long long total = static_cast<long long>(LineStarts(updated).size());
  return Msg("edit_done", {{"path", loaded->visible},
                           {"first", std::to_string(std::min(first, std::max(total, 1LL)))},
                           {"last", std::to_string(std::min(last, total))},
                           {"snippet", snippet}});
}

Result<std::string> FileEditor::Insert(const std::string& path, std::optional<long long> insert_line,
                                       const std::optional<std::string>& new_str) {
  if (!insert_line) return Msg("missing_argument", {{"command", "insert"}, {"argument", "insert_line"}});
  if (!new_str) return Msg("missing_argument", {{"command", "insert"}, {"argument", "new_str"}});
  std::string refusal;
  SG_ASSIGN_OR_RETURN(auto loaded, LoadForEdit(path, "insert", &refusal));
  if (!loaded) return refusal;
  const std::string& content = loaded->content;
  auto starts = LineStarts(content);
  const long long total = static_cast<long long>(starts.size());
  const long long line = *insert_line;
  if (line < 0 || line > total) {
    return Msg("insert_out_of_range", {{"line", std::to_string(line)}, {"total", std::to_string(total)}});
  }
  const bool crlf = UsesCrlf(content);
  const std::string eol = crlf ? "\r\n" : "\n";
  std::string text = crlf ? ToCrlf(*new_str) : *new_str;
  std::string updated;
  if (line == total && !content.empty() && content.back() != '\n') {
    // Appending after a last line without a newline: keep the file ending
    // without one.
    if (text.size() >= eol.size() && text.compare(text.size() - eol.size(), eol.size(), eol) == 0) {
      text.resize(text.size() - eol.size());
    }
    updated = content + eol + text;
  } else {
    if (text.empty() || text.back() != '\n') text += eol;
    const std::size_t offset = line == 0 ? 0 : (line < total ? starts[static_cast<std::size_t>(line)] : content.size());
    updated = content.substr(0, offset) + text + content.substr(offset);
  }
  Status written = WriteExisting(loaded->host, updated);
  if (!written.ok()) {
    return Msg("io_error", {{"action", "write"}, {"path", loaded->visible}, {"error", written.message()}});
  }
  Remember(loaded->host, content);
  const long long count = std::max(1LL, CountLines(text));
  const long long new_total = static_cast<long long>(LineStarts(updated).size());
  const long long first = std::max(1LL, line + 1 - options_.snippet_context_lines);
  const long long last = std::min(new_total, line + count + options_.snippet_context_lines);
  SG_ASSIGN_OR_RETURN(std::string snippet, Snippet(updated, first, last));
  return Msg("insert_done", {{"path", loaded->visible},
                             {"count", std::to_string(count)},
                             {"line", std::to_string(line)},
                             {"first", std::to_string(first)},
                             {"last", std::to_string(last)},
                             {"snippet", snippet}});
}

Result<std::string> FileEditor::UndoEdit(const std::string& path) {
  auto resolved = paths_.Resolve(path);
  if (!resolved.ok()) return PathRefusal(path, resolved.status());
  auto it = history_.find(resolved->host);
  if (it == history_.end() || it->second.empty()) {
    return Msg("undo_nothing", {{"path", resolved->visible}});
  }
  std::optional<std::string> previous = std::move(it->second.back());
  it->second.pop_back();
  history_bytes_ -= previous ? previous->size() : 0;
  if (!previous) {
    if (::unlink(resolved->host.c_str()) != 0 && errno != ENOENT) {
      return Msg("io_error", {{"action", "remove"}, {"path", resolved->visible}, {"error", std::strerror(errno)}});
    }
    return Msg("undo_removed", {{"path", resolved->visible}});
  }
  Status written = WriteExisting(resolved->host, *previous);
  if (!written.ok()) {
    return Msg("io_error", {{"action", "write"}, {"path", resolved->visible}, {"error", written.message()}});
  }
  return Msg("undo_done", {{"path", resolved->visible}, {"remaining", std::to_string(it->second.size())}});
}

}  // namespace seragen::tools
