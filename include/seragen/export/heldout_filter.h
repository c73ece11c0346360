// What keeps the held-out evaluation split (eval.holdout, docs/EVAL.md) out
// of training exports: a held-out task gives no row, and a row of any other
// task whose patch touches a file of a held-out task is left out too (the
// split holds out whole files, so a training row never shows a change to
// code a held-out task is about). Pure; thread-safe after construction.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace seragen::exporter {

// Exclusion reasons (ExportReport::excluded).
inline constexpr const char* kHeldOutTask = "heldout_task";
inline constexpr const char* kT1TouchesHeldOut = "t1_touches_heldout";
inline constexpr const char* kT2TouchesHeldOut = "t2_touches_heldout";

// The repository-relative paths a unified diff names in its file headers
// ("diff --git", "---"/"+++" before the first hunk, "rename from/to",
// "copy from/to"), without the a/ b/ prefixes and quotes; /dev/null is
// not a path. Any text is a patch (possibly naming no path).
std::set<std::string> PatchPaths(std::string_view patch);

class HeldOutFilter {
 public:
  HeldOutFilter() = default;
  // Files per repository name (callgraph::HeldOutFiles).
  explicit HeldOutFilter(std::map<std::string, std::vector<std::string>> files);

  bool empty() const { return files_.empty(); }
  // Whether `patch` of a task in `repo` touches a held-out file.
  bool Touches(const std::string& repo, std::string_view patch) const;

 private:
  std::map<std::string, std::set<std::string>, std::less<>> files_;
};

}  // namespace seragen::exporter
