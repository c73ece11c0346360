#include "repo_files.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include "seragen/base/file_util.h"

namespace seragen::env::detail {
namespace {

bool LstatIs(const std::string& path, mode_t kind) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Calls `visit` with each trimmed line of `section` (from its header to the next one).
template <typename Visit>
void ForSectionLines(const std::string& text, const std::string& section, Visit visit) {
  bool inside = false;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line = Trim(std::string_view(text).substr(pos, end - pos));
    pos = end + 1;
    if (!line.empty() && line.front() == '[') {
      inside = line == "[" + section + "]";
      continue;
    }
    if (inside && !line.empty() && visit(line)) return;
  }
}

// `key = value` / `key: value` on `line`: the value, or nullopt.
std::optional<std::string_view> ValueOf(std::string_view line, const std::string& key) {
  if (line.substr(0, key.size()) != key) return std::nullopt;
  std::string_view rest = Trim(line.substr(key.size()));
  if (rest.empty() || (rest.front() != '=' && rest.front() != ':')) return std::nullopt;
  return Trim(rest.substr(1));
}

}  // namespace

std::optional<std::string> ReadMarker(const std::string& dir, const std::string& name) {
  if (!IsFile(dir, name)) return std::nullopt;
  Result<std::string> text = ReadRegularFile(dir + "/" + name, kMaxMarkerBytes);
  if (!text.ok()) return std::nullopt;
  return std::move(*text);
}

bool IsFile(const std::string& dir, const std::string& name) { return LstatIs(dir + "/" + name, S_IFREG); }

bool IsDirectory(const std::string& dir, const std::string& name) { return LstatIs(dir + "/" + name, S_IFDIR); }

std::vector<std::string> ListNames(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
    if (names.size() >= 4096) break;
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

std::string SectionValue(const std::string& text, const std::string& section, const std::string& key) {
  std::string out;
  ForSectionLines(text, section, [&](std::string_view line) {
    std::optional<std::string_view> v = ValueOf(line, key);
    if (!v) return false;
    std::string_view value = *v;
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    out = std::string(value);
    return true;
  });
  return out;
}

bool SectionHasKey(const std::string& text, const std::string& section, const std::string& key) {
  bool found = false;
  ForSectionLines(text, section, [&](std::string_view line) {
    std::string_view name = line.substr(0, line.find_first_of("=: \t"));
    if (name.size() >= 2 && (name.front() == '"' || name.front() == '\'')) name = name.substr(1, name.size() - 2);
    found = name == key;
    return found;
  });
  return found;
}

}  // namespace seragen::env::detail
