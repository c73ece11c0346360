#include "seragen/export/heldout_filter.h"

#include <utility>

namespace seragen::exporter {
namespace {

// `name` without surrounding quotes (git quotes names with spaces or
// special bytes) and without a leading "a/" or "b/" when `prefixed`.
std::string CleanName(std::string_view name, bool prefixed) {
  while (!name.empty() && (name.back() == '\r' || name.back() == '\t')) name.remove_suffix(1);
  if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
  if (prefixed && (name.starts_with("a/") || name.starts_with("b/"))) name.remove_prefix(2);
  return std::string(name);
}

// "diff --git a/X b/Y": both names when the line splits at " b/" once.
void AddGitLineNames(std::string_view names, std::set<std::string>* out) {
  std::size_t mid = names.find(" b/");
  if (mid == std::string_view::npos || names.find(" b/", mid + 1) != std::string_view::npos) {
    mid = names.find("\" \"");  // quoted: "a/x y" "b/x y"
    if (mid == std::string_view::npos) return;
    ++mid;
  }
  out->insert(CleanName(names.substr(0, mid), true));
  out->insert(CleanName(names.substr(mid + 1), true));
}

}  // namespace

std::set<std::string> PatchPaths(std::string_view patch) {
  std::set<std::string> out;
  bool in_header = false;
  // A patch without git headers (a plain unified diff): its ---/+++ pairs name the files.
  const bool plain = !patch.starts_with("diff --git ") && patch.find("\ndiff --git ") == std::string_view::npos;
  std::size_t pos = 0;
  while (pos < patch.size()) {
    std::size_t end = patch.find('\n', pos);
    if (end == std::string_view::npos) end = patch.size();
    std::string_view line = patch.substr(pos, end - pos);
    pos = end + 1;
    if (line.starts_with("diff --git ")) {
      in_header = true;
      AddGitLineNames(line.substr(11), &out);
    } else if (line.starts_with("@@")) {
      in_header = false;
    } else if (line.starts_with("--- ") || line.starts_with("+++ ")) {
      // In a git patch only header lines name files ("--- x" in a hunk is a removed line).
      std::string name = CleanName(line.substr(4), true);
      if (name != "/dev/null" && (in_header || plain)) out.insert(name);
    } else if (in_header) {
      for (std::string_view key : {"rename from ", "rename to ", "copy from ", "copy to "}) {
        if (line.starts_with(key)) out.insert(CleanName(line.substr(key.size()), false));
      }
    }
  }
  out.erase("");
  return out;
}

HeldOutFilter::HeldOutFilter(std::map<std::string, std::vector<std::string>> files) {
  for (auto& [repo, list] : files) {
    if (!list.empty()) files_[repo].insert(list.begin(), list.end());
  }
}

bool HeldOutFilter::Touches(const std::string& repo, std::string_view patch) const {
  auto held = files_.find(repo);
  if (held == files_.end() || patch.empty()) return false;
  for (const std::string& path : PatchPaths(patch)) {
    if (held->second.count(path)) return true;
  }
  return false;
}

}  // namespace seragen::exporter
