#include "seragen/repo/diff.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "repo/abbrev.h"
#include "repo/confined_fs.h"
#include "repo/embedded_head.h"
#include "repo/git_handles.h"
#include "repo/working_copy_ops.h"
#include "repo/worktree_scan.h"

namespace seragen::repo {

namespace {

using internal::GitStatus;

using PatchPtr = internal::GitPtr<git_patch, git_patch_free>;

// Rewrites one file section printed by libgit2 (with 40-hex ids) into git's form.
class SectionFormatter {
 public:
  SectionFormatter(const git_diff_delta& delta, std::size_t num_hunks, const Abbreviator& abbrev)
      : delta_(delta), num_hunks_(num_hunks), abbrev_(abbrev) {}

  std::string Format(const std::string& section) const {
    std::string out;
    out.reserve(section.size());
    bool in_header = true;
    std::size_t pos = 0;
    while (pos < section.size()) {
      std::size_t end = section.find('\n', pos);
      std::size_t next = end == std::string::npos ? section.size() : end + 1;
      std::string_view line(section.data() + pos, next - pos);
      pos = next;
      if (in_header && line.rfind("@@", 0) == 0) in_header = false;
      if (in_header && line.rfind("index ", 0) == 0) {
        out += RewriteIndexLine(line);
        continue;
      }
      bool file_label = in_header && (line.rfind("--- ", 0) == 0 || line.rfind("+++ ", 0) == 0);
      // git prints no ---/+++ lines for a file added or deleted without content
      // (an empty file); libgit2 does.
      if (file_label && num_hunks_ == 0 && !IsBinary()) continue;
      if (file_label) {
        // git ends a label containing a space with a TAB (for GNU patch).
        std::string_view body = line.substr(4);
        bool newline = !body.empty() && body.back() == '\n';
        if (newline) body.remove_suffix(1);
        out += line.substr(0, 4);
        out += body;
        if (body.find(' ') != std::string_view::npos) out += '\t';
        if (newline) out += '\n';
        continue;
      }
      out += line;
    }
    return out;
  }

 private:
  bool IsBinary() const { return (delta_.flags & GIT_DIFF_FLAG_BINARY) != 0; }

  // "index <old40>..<new40>[ <mode>]\n" with ids abbreviated like git.
  std::string RewriteIndexLine(std::string_view line) const {
    std::string text(line);
    std::size_t dots = text.find("..", 6);
    if (dots == std::string::npos) return text;
    std::size_t end_new = text.find_first_of(" \n", dots + 2);
    if (end_new == std::string::npos) end_new = text.size();
    std::string rest = text.substr(end_new);
    return "index " + abbrev_.Abbreviate(delta_.old_file.id) + ".." + abbrev_.Abbreviate(delta_.new_file.id) + rest;
  }

  const git_diff_delta& delta_;
  std::size_t num_hunks_;
  const Abbreviator& abbrev_;
};

using FilterListPtr = internal::GitPtr<git_filter_list, git_filter_list_free>;

// The patch-size budget of one DiffAgainstBase call (DiffOptions::max_bytes).
// Charged twice over: first with a lower bound of each changed path's share
// of the patch, taken from sizes alone (lstat of the work-tree file, object
// header of the base blob) before any content is read; then with the exact
// size of each printed file section. Either way the first charge past the
// limit fails the diff; nothing larger than the limit is read or built.
class PatchBudget {
 public:
  explicit PatchBudget(std::size_t limit) : limit_(limit) {}

  bool unlimited() const { return limit_ == 0; }
  std::size_t remaining(std::size_t used) const { return used >= limit_ ? 0 : limit_ - used; }

  // Estimate phase: a changed path costs at least its "diff --git" line, plus
  // the content it adds beyond the base blob.
  Status ChargeEstimate(std::size_t bytes) { return Charge(&estimated_, bytes); }
  // Output phase: exact bytes of printed sections.
  Status ChargeOutput(std::size_t bytes) { return Charge(&printed_, bytes); }
  std::size_t estimate_remaining() const { return remaining(estimated_); }

  Status Exceeded() const { return ResourceExhaustedError("patch exceeds " + std::to_string(limit_) + " bytes"); }

 private:
  Status Charge(std::size_t* used, std::size_t bytes) {
    if (unlimited()) return Status::Ok();
    if (bytes > limit_ - std::min(*used, limit_)) return Exceeded();
    *used += bytes;
    return Status::Ok();
  }

  std::size_t limit_;
  std::size_t estimated_ = 0;
  std::size_t printed_ = 0;
};

// Lower bound of the header bytes a changed path adds ("diff --git a/P b/P\n").
std::size_t HeaderBytes(const std::string& path) { return 2 * path.size() + 16; }

// Size of the blob `path` has in `base_tree`; 0 when it has none.
std::size_t BaseBlobSize(git_repository* repo, git_tree* base_tree, const std::string& path) {
  git_tree_entry* raw = nullptr;
  if (git_tree_entry_bypath(&raw, base_tree, path.c_str()) != 0) return 0;
  internal::TreeEntryPtr entry(raw);
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) return 0;
  git_odb* odb_raw = nullptr;
  if (git_repository_odb(&odb_raw, repo) != 0) return 0;
  internal::OdbPtr odb(odb_raw);
  std::size_t len = 0;
  git_object_t type = GIT_OBJECT_INVALID;
  if (git_odb_read_header(&len, &type, odb.get(), git_tree_entry_id(entry.get())) != 0) return 0;
  return len;
}

// The work tree's side of one DiffAgainstBase call. Every read of the work
// tree goes through `root` (ConfinedDir: never through a symlink, never
// blocking); libgit2's work directory is the rules shadow, not the copy.
struct StageContext {
  git_repository* repo;
  git_tree* base_tree;
  git_index* index;
  const internal::ConfinedDir& root;
  PatchBudget& budget;
};

// Reads regular file `path` of the work tree, at most `max_bytes` of it when
// the budget is limited (longer: the budget's ResourceExhausted; the file
// may have grown since it was measured).
Result<std::string> ReadBounded(const StageContext& c, const std::string& path, std::size_t max_bytes) {
  if (c.budget.unlimited()) max_bytes = SIZE_MAX;
  Result<std::string> content = c.root.ReadFile(path, max_bytes);
  if (!content.ok() && content.status().code() == StatusCode::kResourceExhausted) return c.budget.Exceeded();
  return content;
}

// Reads a work-tree file as git would store it: eol/ident filters for the
// path applied (TO_ODB direction). Empty content is returned as is without
// running filters, which is what they would produce anyway.
Result<std::string> FilteredContent(const StageContext& c, const std::string& path, std::size_t max_bytes) {
  SG_ASSIGN_OR_RETURN(std::string raw, ReadBounded(c, path, max_bytes));
  if (raw.empty()) return raw;
  git_filter_list* filters_raw = nullptr;
  int rc = git_filter_list_load(&filters_raw, c.repo, nullptr, path.c_str(), GIT_FILTER_TO_ODB, GIT_FILTER_DEFAULT);
  if (rc != 0) return GitStatus(rc, "cannot load filters for '" + path + "'");
  if (filters_raw == nullptr) return raw;
  FilterListPtr filters(filters_raw);
  internal::OwnedBuf out;
  rc = git_filter_list_apply_to_buffer(&out.buf, filters.get(), raw.data(), raw.size());
  if (rc != 0) return GitStatus(rc, "cannot filter '" + path + "'");
  return out.str();
}

// True when tracked `path` (same type, mode and size as cached) still hashes
// to its index entry's id. Reads no more than its measured size; anything
// unexpected answers false and leaves the decision to StagePath.
bool SameAsIndex(const StageContext& c, const std::string& path, const struct stat& st) {
  const git_index_entry* entry = git_index_get_bypath(c.index, path.c_str(), 0);
  if (entry == nullptr) return false;
  auto size = static_cast<std::size_t>(st.st_size);
  // Read capped at the measured size, whatever the caller's budget.
  PatchBudget capped(SIZE_MAX);
  StageContext exact{c.repo, c.base_tree, c.index, c.root, capped};
  Result<std::string> content = S_ISLNK(st.st_mode) ? c.root.ReadLink(path, size) : FilteredContent(exact, path, size);
  if (!content.ok()) return false;
  git_oid id;
  if (git_odb_hash(&id, content->data(), content->size(), GIT_OBJECT_BLOB) != 0) return false;
  return git_oid_equal(&id, &entry->id) != 0;
}

// libgit2 refuses some names git refuses too (`.git.`, `GIT~1`, ...): such a
// path is left out of the patch, as it could never be committed.
bool RefusedPath() {
  const git_error* e = git_error_last();
  return e != nullptr && e->klass == GIT_ERROR_INDEX && e->message != nullptr &&
         std::strncmp(e->message, "invalid path", 12) == 0;
}

Status AddToIndex(const StageContext& c, const git_index_entry& entry, const std::string* content) {
  int rc = content != nullptr ? git_index_add_from_buffer(c.index, &entry, content->data(), content->size())
                              : git_index_add(c.index, &entry);
  if (rc == 0) return Status::Ok();
  if (RefusedPath()) {
    git_error_clear();
    return Status::Ok();
  }
  return GitStatus(rc, std::string("cannot stage '") + entry.path + "'");
}

// An untracked directory listed on its own is an embedded repository: git
// adds it as a gitlink to its HEAD commit (and refuses if it has none). It is
// agent-written: its HEAD is read as plain files, never opened.
Status StageDirectory(const StageContext& c, const std::string& path) {
  std::string file_path = path;
  while (!file_path.empty() && file_path.back() == '/') file_path.pop_back();
  std::optional<git_oid> head = internal::EmbeddedRepositoryHead(c.root, path);
  if (!head) {
    // A tracked file replaced by a plain directory: the file is gone (the
    // files inside are listed and staged on their own).
    if (git_index_get_bypath(c.index, file_path.c_str(), 0) != nullptr) {
      int rc = git_index_remove_bypath(c.index, file_path.c_str());
      if (rc != 0) return GitStatus(rc, "cannot unstage '" + file_path + "'");
    }
    return Status::Ok();
  }
  git_index_entry entry;
  std::memset(&entry, 0, sizeof(entry));
  entry.path = file_path.c_str();
  entry.mode = GIT_FILEMODE_COMMIT;
  entry.id = *head;
  return AddToIndex(c, entry, nullptr);
}

// Stages the work-tree state of `changed` into the index (like `git add`),
// writing the blob into the repository's (in-memory) object store. Charges
// the budget from sizes before reading any content.
Status StagePath(const StageContext& c, const internal::ChangedPath& changed) {
  const std::string& path = changed.path;
  Result<struct stat> stat_or = c.root.Lstat(path);
  if (changed.maybe_unchanged && stat_or.ok() && SameAsIndex(c, path, *stat_or)) return Status::Ok();
  SG_RETURN_IF_ERROR(c.budget.ChargeEstimate(HeaderBytes(path)));
  if (!stat_or.ok()) {
    if (stat_or.status().code() != StatusCode::kNotFound) return stat_or.status();
    int rc = git_index_remove_bypath(c.index, path.c_str());
    return rc == 0 || RefusedPath() ? Status::Ok() : GitStatus(rc, "cannot unstage '" + path + "'");
  }
  const struct stat& st = *stat_or;
  if (S_ISDIR(st.st_mode)) return StageDirectory(c, path);
  if (!S_ISLNK(st.st_mode) && !S_ISREG(st.st_mode)) return Status::Ok();  // sockets, fifos: git ignores them too
  // Content beyond the base blob's size is charged: as text it appears in the
  // patch at least once, and binary content would be read and hashed all the
  // same. What may be read of a file is its measured size (or base size, if
  // larger) plus what remains of the budget.
  std::size_t read_limit = 0;
  if (!c.budget.unlimited()) {
    std::size_t size = static_cast<std::size_t>(st.st_size);
    std::size_t base_size = BaseBlobSize(c.repo, c.base_tree, path);
    if (size > base_size) SG_RETURN_IF_ERROR(c.budget.ChargeEstimate(size - base_size));
    read_limit = std::max(size, base_size) + c.budget.estimate_remaining();
  }
  git_index_entry entry;
  std::memset(&entry, 0, sizeof(entry));
  entry.path = path.c_str();
  std::string content;
  if (S_ISLNK(st.st_mode)) {
    entry.mode = GIT_FILEMODE_LINK;
    SG_ASSIGN_OR_RETURN(content, c.root.ReadLink(path, static_cast<std::size_t>(st.st_size) + 256));
  } else {
    entry.mode = (st.st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
    SG_ASSIGN_OR_RETURN(content, FilteredContent(c, path, read_limit));
  }
  return AddToIndex(c, entry, &content);
}

// The index file's mtime: entries not older than it are "racily clean".
struct timespec IndexMtime(const std::string& index_path) {
  struct stat st;
  if (::stat(index_path.c_str(), &st) != 0) return {0, 0};
  return st.st_mtim;
}

// Loads the copy's index file (for its stat cache) without ever writing it,
// then updates it in memory to mirror the work tree, like `git add -A`.
// git_index_add_all is not used: in libgit2 1.5.1 it aborts on a tracked file
// truncated to empty under text attributes. libgit2's status is not used
// either: it would read the work tree's rules files itself (see
// worktree_scan.h). Changed paths come from our own walk and are hashed here.
Result<internal::IndexPtr> WorkTreeIndex(git_repository* repo, git_tree* base_tree, const CopyPaths& copy,
                                         const internal::RulesShadow& shadow, PatchBudget& budget) {
  const std::string& copy_path = copy.work_tree;
  std::string index_path = std::string(git_repository_path(repo)) + "index";
  bool has_index_file = std::filesystem::exists(index_path);
  git_index* raw = nullptr;
  int rc = git_index_open(&raw, index_path.c_str());
  if (rc != 0) {
    // A corrupt index is no reason to fail: start from the base tree instead.
    rc = git_index_new(&raw);
    has_index_file = false;
    if (rc != 0) return GitStatus(rc, "cannot create an in-memory index for " + copy_path);
  }
  internal::IndexPtr index(raw);
  if (!has_index_file) {
    rc = git_index_read_tree(index.get(), base_tree);
    if (rc != 0) return GitStatus(rc, "cannot load the base tree into an index for " + copy_path);
  }
  // Eol filters consult the repository's index (git's safe-crlf rule); make it ours.
  git_repository_set_index(repo, index.get());
  SG_ASSIGN_OR_RETURN(internal::ConfinedDir root, internal::ConfinedDir::Open(copy_path));
  internal::WorkTreeScanInput scan{&root, index.get(), repo, &shadow,
                                   has_index_file ? IndexMtime(index_path) : timespec{0, 0}};
  SG_ASSIGN_OR_RETURN(std::vector<internal::ChangedPath> changed, internal::ScanWorkTree(scan));
  StageContext context{repo, base_tree, index.get(), root, budget};
  for (const internal::ChangedPath& path : changed) SG_RETURN_IF_ERROR(StagePath(context, path));
  return index;
}

}  // namespace

Result<std::string> DiffAgainstBase(const CopyPaths& copy, std::string_view base_commit, const DiffOptions& options) {
  const std::string& copy_path = copy.work_tree;
  SG_RETURN_IF_ERROR(internal::CheckCopyIsReal(copy));
  SG_ASSIGN_OR_RETURN(internal::RepoPtr repo, internal::OpenCopyRepository(copy));
  // libgit2 reads rules files from its work directory: give it the shadow,
  // which holds only safe copies of the work tree's (worktree_scan.h).
  SG_ASSIGN_OR_RETURN(internal::RulesShadow shadow, internal::RulesShadow::Create(copy.git_dir));
  int rc = git_repository_set_workdir(repo.get(), shadow.path().c_str(), /*update_gitlink=*/0);
  if (rc != 0) return GitStatus(rc, "cannot use a rules directory for " + copy_path);
  // New blobs go to an in-memory object store, never into the copy.
  git_odb* odb_raw = nullptr;
  rc = git_repository_odb(&odb_raw, repo.get());
  if (rc != 0) return GitStatus(rc, "cannot open the object database of " + copy_path);
  internal::OdbPtr odb(odb_raw);
  git_odb_backend* mempack = nullptr;
  rc = git_mempack_new(&mempack);
  if (rc != 0) return GitStatus(rc, "cannot create an in-memory object store");
  rc = git_odb_add_backend(odb.get(), mempack, 1000);
  if (rc != 0) {
    mempack->free(mempack);
    return GitStatus(rc, "cannot attach an in-memory object store");
  }

  auto tree_or = internal::CommitTree(repo.get(), base_commit);
  if (!tree_or.ok()) return tree_or.status().WithContext("diff of " + copy_path);
  internal::TreePtr base_tree = std::move(tree_or).value();
  PatchBudget budget(options.max_bytes);
  SG_ASSIGN_OR_RETURN(internal::IndexPtr index, WorkTreeIndex(repo.get(), base_tree.get(), copy, shadow, budget));

  git_diff_options diff_options = GIT_DIFF_OPTIONS_INIT;
  diff_options.flags = GIT_DIFF_NORMAL;
  if (options.binary) diff_options.flags |= GIT_DIFF_SHOW_BINARY;
  diff_options.context_lines = 3;
  diff_options.interhunk_lines = 0;
  diff_options.id_abbrev = GIT_OID_HEXSZ;
  git_diff* diff_raw = nullptr;
  rc = git_diff_tree_to_index(&diff_raw, repo.get(), base_tree.get(), index.get(), &diff_options);
  if (rc != 0) return GitStatus(rc, "cannot diff " + copy_path + " against " + std::string(base_commit));
  internal::DiffPtr diff(diff_raw);

  int abbrev_len = options.binary ? GIT_OID_HEXSZ : options.abbrev;
  Abbreviator abbreviator(odb.get(), internal::ObjectsDir(repo.get()), abbrev_len);
  std::string out;
  std::size_t deltas = git_diff_num_deltas(diff.get());
  for (std::size_t i = 0; i < deltas; ++i) {
    git_patch* patch_raw = nullptr;
    rc = git_patch_from_diff(&patch_raw, diff.get(), i);
    if (rc != 0) return GitStatus(rc, "cannot compute the patch of " + copy_path);
    PatchPtr patch(patch_raw);
    if (patch == nullptr) continue;  // unchanged entry
    // libgit2's count of the section before it is printed; abbreviating the
    // two ids on its "index" line makes ours up to 66 bytes shorter.
    if (!budget.unlimited() && git_patch_size(patch.get(), 1, 1, 1) > budget.remaining(out.size()) + 66) {
      return budget.Exceeded();
    }
    internal::OwnedBuf buf;
    rc = git_patch_to_buf(&buf.buf, patch.get());
    if (rc != 0) return GitStatus(rc, "cannot print the patch of " + copy_path);
    const git_diff_delta* delta = git_patch_get_delta(patch.get());
    SectionFormatter formatter(*delta, git_patch_num_hunks(patch.get()), abbreviator);
    std::string section = formatter.Format(buf.str());
    SG_RETURN_IF_ERROR(budget.ChargeOutput(section.size()));
    out += section;
  }
  return out;
}

}  // namespace seragen::repo
