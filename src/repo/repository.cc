#include "seragen/repo/repository.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "repo/git_handles.h"
#include "repo/repository_impl.h"
#include "seragen/base/file_util.h"
#include "seragen/base/glob.h"
#include "seragen/base/hash.h"

namespace seragen::repo {

using internal::GitStatus;

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kBinaryProbeBytes = 8000;  // what git inspects

std::string StripTrailingSlash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

bool IsBinaryContent(const void* data, std::size_t size) {
  return std::memchr(data, '\0', std::min(size, kBinaryProbeBytes)) != nullptr;
}

struct WalkState {
  std::vector<TrackedFile> files;
};

int CollectBlob(const char* root, const git_tree_entry* entry, void* payload) {
  auto* state = static_cast<WalkState*>(payload);
  git_filemode_t mode = git_tree_entry_filemode(entry);
  if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) return 0;
  TrackedFile file;
  file.path = std::string(root) + git_tree_entry_name(entry);
  file.blob_id = internal::OidHex(*git_tree_entry_id(entry));
  file.mode = static_cast<std::uint32_t>(mode);
  state->files.push_back(std::move(file));
  return 0;
}

}  // namespace

Repository::Repository(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Repository::Repository(Repository&&) noexcept = default;
Repository& Repository::operator=(Repository&&) noexcept = default;
Repository::~Repository() = default;

Result<Repository> Repository::Open(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return NotFoundError("repository path does not exist: '" + path + "'");
  std::string absolute = fs::absolute(path, ec).lexically_normal().string();
  Result<internal::RepoPtr> opened = internal::OpenRepositoryExact(absolute);
  if (!opened.ok()) {
    // libgit2 says "could not find repository" when it may not look inside.
    for (const std::string& dir : {absolute, absolute + "/.git"}) {
      if (fs::exists(dir, ec) && ::access(dir.c_str(), R_OK | X_OK) != 0) {
        return PermissionDeniedError("permission denied: '" + dir + "' cannot be read by this user (uid " +
                                     std::to_string(::geteuid()) + ")");
      }
    }
    return opened.status();
  }
  internal::RepoPtr repo = std::move(*opened);
  auto impl = std::make_unique<Impl>();
  impl->git_dir = StripTrailingSlash(git_repository_path(repo.get()));
  impl->objects_dir = internal::ObjectsDir(repo.get());
  impl->repo = std::move(repo);
  return Repository(std::move(impl));
}

bool LooksLikeUrl(std::string_view text) {
  if (text.find("://") != std::string_view::npos) return true;
  // scp-like "user@host:path" (but not a local path containing ':' after a '/').
  std::size_t at = text.find('@');
  std::size_t colon = text.find(':');
  std::size_t slash = text.find('/');
  return at != std::string_view::npos && colon != std::string_view::npos && at < colon &&
         (slash == std::string_view::npos || colon < slash);
}

std::string CacheNameForUrl(std::string_view url) {
  std::string_view trimmed = url;
  while (!trimmed.empty() && (trimmed.back() == '/')) trimmed.remove_suffix(1);
  std::size_t cut = trimmed.find_last_of("/:");
  std::string_view stem = cut == std::string_view::npos ? trimmed : trimmed.substr(cut + 1);
  if (stem.size() > 4 && stem.substr(stem.size() - 4) == ".git") stem.remove_suffix(4);
  std::string safe;
  for (char c : stem) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    safe += ok ? c : '_';
  }
  if (safe.empty() || safe[0] == '.') safe = "repo" + safe;
  if (safe.size() > 64) safe.resize(64);
  return safe + "-" + Sha256Hex(url).substr(0, 12) + ".git";
}

Result<Repository> Repository::OpenOrClone(const std::string& url_or_path, const std::string& cache_dir) {
  if (url_or_path.empty()) return InvalidArgumentError("repository URL or path is empty");
  if (!LooksLikeUrl(url_or_path)) return Open(url_or_path);
  if (cache_dir.empty()) {
    return InvalidArgumentError("a clone cache directory is needed to clone '" + url_or_path + "'");
  }
  internal::EnsureLibgit2();
  SG_RETURN_IF_ERROR(MakeDirs(cache_dir));
  std::error_code ec;
  std::string cache_abs = fs::absolute(cache_dir, ec).lexically_normal().string();
  std::string target = cache_abs + "/" + CacheNameForUrl(url_or_path);
  if (fs::exists(target, ec)) return Open(target);

  static std::atomic<unsigned> counter{0};
  std::string tmp = target + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  fs::remove_all(tmp, ec);
  git_clone_options options = GIT_CLONE_OPTIONS_INIT;
  options.bare = 1;
  options.checkout_opts.checkout_strategy = GIT_CHECKOUT_NONE;
  git_repository* raw = nullptr;
  int rc = git_clone(&raw, url_or_path.c_str(), tmp.c_str(), &options);
  if (rc != 0) {
    Status status = GitStatus(rc, "cannot clone '" + url_or_path + "'");
    fs::remove_all(tmp, ec);
    return status;
  }
  git_repository_free(raw);
  fs::rename(tmp, target, ec);
  if (ec) {
    // Another process finished the same clone first: keep theirs.
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    if (!fs::exists(target, ignored)) {
      return IoError("cannot move clone of '" + url_or_path + "' into '" + target + "': " + ec.message());
    }
  }
  return Open(target);
}

Result<std::string> Repository::ResolveCommit(std::string_view ref) const {
  if (ref.empty()) return InvalidArgumentError("empty revision");
  git_repository* repo = impl_->repo.get();
  std::string spec(ref);
  git_object* raw = nullptr;
  int rc = git_revparse_single(&raw, repo, spec.c_str());
  if (rc == GIT_ENOTFOUND && spec.find(':') == std::string::npos) {
    // Clones keep branches as origin/<name>.
    std::string remote = "origin/" + spec;
    rc = git_revparse_single(&raw, repo, remote.c_str());
    if (rc != 0) rc = GIT_ENOTFOUND;
  }
  if (rc != 0 && git_repository_is_empty(repo) == 1) {
    return FailedPreconditionError("the repository " + impl_->git_dir + " has no commits yet, so '" + spec +
                                   "' names nothing; commit something or point repo.source elsewhere");
  }
  if (rc == GIT_ENOTFOUND) {
    // libgit2's own text here is whatever its last lookup left behind.
    return NotFoundError("no such ref or commit '" + spec + "' in " + impl_->git_dir +
                         " (not a branch, tag or commit id there)");
  }
  if (rc != 0) {
    return GitStatus(rc, "cannot resolve revision '" + spec + "' in " + impl_->git_dir);
  }
  internal::ObjectPtr object(raw);
  git_object* peeled = nullptr;
  rc = git_object_peel(&peeled, object.get(), GIT_OBJECT_COMMIT);
  if (rc != 0) {
    return InvalidArgumentError("revision '" + spec + "' does not name a commit (it is a " +
                                git_object_type2string(git_object_type(object.get())) + ")");
  }
  internal::ObjectPtr commit(peeled);
  return internal::OidHex(*git_object_id(commit.get()));
}

Result<std::vector<TrackedFile>> Repository::ListFiles(std::string_view commit, const FileFilter& filter) const {
  git_repository* repo = impl_->repo.get();
  SG_ASSIGN_OR_RETURN(internal::TreePtr tree, internal::CommitTree(repo, commit));
  WalkState state;
  int rc = git_tree_walk(tree.get(), GIT_TREEWALK_PRE, &CollectBlob, &state);
  if (rc != 0) return GitStatus(rc, "cannot walk the tree of commit " + std::string(commit));

  git_odb* odb_raw = nullptr;
  rc = git_repository_odb(&odb_raw, repo);
  if (rc != 0) return GitStatus(rc, "cannot open the object database");
  internal::OdbPtr odb(odb_raw);

  std::vector<TrackedFile> kept;
  kept.reserve(state.files.size());
  for (TrackedFile& file : state.files) {
    if (!filter.include_globs.empty() && !GlobMatchAny(filter.include_globs, file.path)) continue;
    if (GlobMatchAny(filter.exclude_globs, file.path)) continue;
    git_oid oid;
    git_oid_fromstr(&oid, file.blob_id.c_str());
    std::size_t size = 0;
    git_object_t type = GIT_OBJECT_INVALID;
    rc = git_odb_read_header(&size, &type, odb.get(), &oid);
    if (rc != 0) return GitStatus(rc, "cannot read object header of '" + file.path + "'");
    file.size = size;
    if (filter.max_file_bytes != 0 && file.size > filter.max_file_bytes) continue;
    if (filter.skip_binary && file.size > 0) {
      git_blob* blob = nullptr;
      rc = git_blob_lookup(&blob, repo, &oid);
      if (rc != 0) return GitStatus(rc, "cannot read blob of '" + file.path + "'");
      internal::BlobPtr owned(blob);
      if (IsBinaryContent(git_blob_rawcontent(blob), static_cast<std::size_t>(git_blob_rawsize(blob)))) {
        continue;
      }
    }
    kept.push_back(std::move(file));
  }
  std::sort(kept.begin(), kept.end(), [](const TrackedFile& a, const TrackedFile& b) { return a.path < b.path; });
  return kept;
}

Result<std::string> Repository::ReadFile(std::string_view commit, std::string_view path) const {
  git_repository* repo = impl_->repo.get();
  SG_ASSIGN_OR_RETURN(internal::TreePtr tree, internal::CommitTree(repo, commit));
  std::string path_str(path);
  git_tree_entry* raw = nullptr;
  int rc = git_tree_entry_bypath(&raw, tree.get(), path_str.c_str());
  if (rc == GIT_ENOTFOUND) {
    return NotFoundError("no file '" + path_str + "' at commit " + std::string(commit));
  }
  if (rc != 0) return GitStatus(rc, "cannot look up '" + path_str + "'");
  internal::TreeEntryPtr entry(raw);
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) {
    return InvalidArgumentError("'" + path_str + "' at commit " + std::string(commit) + " is not a file");
  }
  return ReadBlob(internal::OidHex(*git_tree_entry_id(entry.get())));
}

Result<std::string> Repository::ReadBlob(std::string_view blob_id) const {
  SG_ASSIGN_OR_RETURN(git_oid oid, internal::ParseOid(blob_id));
  git_blob* blob = nullptr;
  int rc = git_blob_lookup(&blob, impl_->repo.get(), &oid);
  if (rc != 0) return GitStatus(rc, "blob " + std::string(blob_id) + " not found");
  internal::BlobPtr owned(blob);
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob)),
                     static_cast<std::size_t>(git_blob_rawsize(blob)));
}

const std::string& Repository::git_dir() const { return impl_->git_dir; }
const std::string& Repository::objects_dir() const { return impl_->objects_dir; }

}  // namespace seragen::repo
