#include "repo/worktree_scan.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_set>

namespace seragen::repo::internal {

namespace {

bool IsRulesFile(const std::string& name) { return name == ".gitignore" || name == ".gitattributes"; }

std::string Join(const std::string& dir, const std::string& name) { return dir.empty() ? name : dir + "/" + name; }

// git's mode for a work-tree entry; 0 for anything git does not stage.
std::uint32_t GitMode(const struct stat& st) {
  if (S_ISLNK(st.st_mode)) return GIT_FILEMODE_LINK;
  if (S_ISREG(st.st_mode)) return (st.st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
  return 0;
}

bool SameTime(const git_index_time& cached, const struct timespec& now) {
  if (cached.seconds != static_cast<std::int32_t>(now.tv_sec)) return false;
  // An index written without nanoseconds records 0.
  return cached.nanoseconds == 0 || cached.nanoseconds == static_cast<std::uint32_t>(now.tv_nsec);
}

// Modified at or after the index was written: the stat cache cannot vouch
// for it (git's "racily clean" rule).
bool IsRacy(const git_index_entry& e, const struct timespec& index_mtime) {
  auto seconds = static_cast<std::int64_t>(e.mtime.seconds);
  if (seconds != index_mtime.tv_sec) return seconds > index_mtime.tv_sec;
  return e.mtime.nanoseconds >= static_cast<std::uint32_t>(index_mtime.tv_nsec);
}

enum class Tracked { kUnchanged, kMaybe, kChanged };

Tracked CompareWithCache(const git_index_entry& e, const struct stat& st, const struct timespec& index_mtime) {
  std::uint32_t mode = GitMode(st);
  if (mode == 0 || mode != e.mode || static_cast<std::uint32_t>(st.st_size) != e.file_size) return Tracked::kChanged;
  bool same_stat = SameTime(e.mtime, st.st_mtim) && SameTime(e.ctime, st.st_ctim) &&
                   e.ino == static_cast<std::uint32_t>(st.st_ino) && e.uid == st.st_uid && e.gid == st.st_gid;
  return same_stat && !IsRacy(e, index_mtime) ? Tracked::kUnchanged : Tracked::kMaybe;
}

class Scanner {
 public:
  explicit Scanner(const WorkTreeScanInput& in) : in_(in) {}

  Result<std::vector<ChangedPath>> Run() {
    SG_RETURN_IF_ERROR(in_.root->WalkDirs(
        [this](const std::string& dir, const std::vector<EntryStat>& entries) { return VisitDir(dir, entries); }));
    AddUnseenTracked();
    std::sort(out_.begin(), out_.end(), [](const ChangedPath& a, const ChangedPath& b) { return a.path < b.path; });
    return std::move(out_);
  }

 private:
  Result<std::vector<std::string>> VisitDir(const std::string& dir, const std::vector<EntryStat>& entries) {
    // Rules first: they decide what is ignored in this directory.
    for (const EntryStat& e : entries) {
      if (IsRulesFile(e.name) && S_ISREG(e.st.st_mode)) in_.shadow->CopyFrom(*in_.root, Join(dir, e.name));
    }
    std::vector<std::string> next;
    for (const EntryStat& e : entries) {
      if (e.name == ".git") continue;
      std::string path = Join(dir, e.name);
      if (S_ISDIR(e.st.st_mode)) {
        if (EnterDirectory(path)) next.push_back(e.name);
      } else {
        VisitFile(path, e.st);
      }
    }
    return next;
  }

  // Tracked directories are entered; an untracked one unless it is ignored or
  // holds a repository of its own (then it is one entry, as git lists it).
  bool EnterDirectory(const std::string& path) {
    const git_index_entry* self = git_index_get_bypath(in_.index, path.c_str(), 0);
    if (self != nullptr && self->mode == GIT_FILEMODE_COMMIT) {
      seen_.insert(path);  // a submodule of the base: left alone, like git status's exclusion
      return false;
    }
    std::string prefix = path + "/";
    std::size_t pos = 0;
    if (git_index_find_prefix(&pos, in_.index, prefix.c_str()) == 0) return true;
    if (IsIgnored(prefix)) return false;
    if (in_.root->Lstat(prefix + ".git").ok()) {
      out_.push_back({prefix, false});
      return false;
    }
    return true;
  }

  void VisitFile(const std::string& path, const struct stat& st) {
    const git_index_entry* entry = git_index_get_bypath(in_.index, path.c_str(), 0);
    if (entry != nullptr) {
      seen_.insert(path);
      Tracked t = CompareWithCache(*entry, st, in_.index_mtime);
      if (t != Tracked::kUnchanged) out_.push_back({path, t == Tracked::kMaybe});
      return;
    }
    if (GitMode(st) == 0) return;  // FIFOs, sockets, devices: git does not add them
    if (!IsIgnored(path)) out_.push_back({path, false});
  }

  // Index entries the walk did not meet as files are gone, or something else
  // (a directory, a symlinked parent) stands in their place.
  void AddUnseenTracked() {
    std::size_t count = git_index_entrycount(in_.index);
    for (std::size_t i = 0; i < count; ++i) {
      const git_index_entry* e = git_index_get_byindex(in_.index, i);
      if (e == nullptr || git_index_entry_stage(e) != 0 || e->mode == GIT_FILEMODE_COMMIT) continue;
      if (seen_.count(e->path) == 0) out_.push_back({e->path, false});
    }
  }

  // Rules come from the shadow only. A lookup that fails (a path libgit2
  // refuses) counts as not ignored; the stager then decides.
  bool IsIgnored(const std::string& path) const {
    int ignored = 0;
    if (git_ignore_path_is_ignored(&ignored, in_.repo, path.c_str()) != 0) {
      git_error_clear();
      return false;
    }
    return ignored != 0;
  }

  const WorkTreeScanInput& in_;
  std::vector<ChangedPath> out_;
  std::unordered_set<std::string> seen_;
};

}  // namespace

Result<RulesShadow> RulesShadow::Create(const std::string& parent) {
  std::string pattern = parent + (parent.empty() || parent.back() != '/' ? "/" : "") + "seragen-rules-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return IoError("cannot create a rules directory in " + parent + ": " + std::strerror(errno));
  }
  return RulesShadow(pattern + "/");
}

RulesShadow::~RulesShadow() {
  if (!path_.empty()) (void)RemoveTreeConfined(path_);
}

void RulesShadow::CopyFrom(const ConfinedDir& root, const std::string& relative) const {
  Result<std::string> content = root.ReadFile(relative, kMaxRulesFileBytes);
  if (!content.ok()) return;  // not a regular file (any more), or too large: no rules
  std::filesystem::path target = std::filesystem::path(path_) / relative;
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) return;
  std::ofstream out(target, std::ios::binary | std::ios::trunc);
  out.write(content->data(), static_cast<std::streamsize>(content->size()));
}

Result<std::vector<ChangedPath>> ScanWorkTree(const WorkTreeScanInput& in) { return Scanner(in).Run(); }

}  // namespace seragen::repo::internal
