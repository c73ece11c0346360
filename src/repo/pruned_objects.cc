#include "repo/pruned_objects.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "repo/git_handles.h"
#include "repo/working_copy_ops.h"
#include "seragen/base/file_util.h"
#include "seragen/base/unique_fd.h"

namespace seragen::repo::internal {
namespace {

namespace fs = std::filesystem;

using PackbuilderPtr = GitPtr<git_packbuilder, git_packbuilder_free>;
using RevwalkPtr = GitPtr<git_revwalk, git_revwalk_free>;

constexpr char kStamp[] = "/info/seragen-base";

bool IsBuilt(const std::string& objects, std::string_view commit) {
  Result<std::string> stamp = ReadFile(objects + kStamp);
  return stamp.ok() && *stamp == std::string(commit) + "\n";
}

// Writes the pack of everything `commit` reaches into `dir`/pack.
Status WritePack(const std::string& source_git_dir, std::string_view commit, const std::string& dir) {
  SG_ASSIGN_OR_RETURN(RepoPtr repo, OpenRepositoryExact(source_git_dir));
  SG_ASSIGN_OR_RETURN(git_oid oid, ParseOid(commit));
  git_revwalk* walk_raw = nullptr;
  if (int rc = git_revwalk_new(&walk_raw, repo.get()); rc != 0) return GitStatus(rc, "revwalk");
  RevwalkPtr walk(walk_raw);
  if (int rc = git_revwalk_push(walk.get(), &oid); rc != 0) return GitStatus(rc, "walking " + std::string(commit));
  git_packbuilder* pb_raw = nullptr;
  if (int rc = git_packbuilder_new(&pb_raw, repo.get()); rc != 0) return GitStatus(rc, "packbuilder");
  PackbuilderPtr pb(pb_raw);
  git_packbuilder_set_threads(pb.get(), 0);  // one per core
  if (int rc = git_packbuilder_insert_walk(pb.get(), walk.get()); rc != 0) {
    return GitStatus(rc, "collecting the objects of " + std::string(commit));
  }
  const std::string pack_dir = dir + "/pack";
  if (int rc = git_packbuilder_write(pb.get(), pack_dir.c_str(), 0, nullptr, nullptr); rc != 0) {
    return GitStatus(rc, "writing the pack of " + std::string(commit));
  }
  return Status::Ok();
}

// Builds into a temporary sibling of `objects` and renames it into place.
Status Build(const std::string& source_git_dir, std::string_view commit, const std::string& objects) {
  std::string tmpl = objects + ".tmp-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return IoError("cannot create " + tmpl + ": " + std::strerror(errno));
  const std::string tmp = tmpl;
  Status st = MakeDirs(tmp + "/pack");
  if (st.ok()) st = MakeDirs(tmp + "/info");
  if (st.ok()) st = WritePack(source_git_dir, commit, tmp);
  if (st.ok()) st = WriteFileReplacing(tmp + kStamp, std::string(commit) + "\n");
  for (const std::string& d : {tmp, tmp + "/pack", tmp + "/info"}) ::chmod(d.c_str(), 0755);  // slot uids read it
  if (st.ok()) {
    (void)ForceRemoveAll(objects);  // an unfinished or foreign store at the name
    if (::rename(tmp.c_str(), objects.c_str()) != 0) {
      st = IoError("cannot move the object store into " + objects + ": " + std::strerror(errno));
    }
  }
  (void)ForceRemoveAll(tmp);
  return st;
}

// Leftovers of processes that died while building (the caller holds the lock).
void RemoveStaleTemps(const std::string& objects) {
  const fs::path dir = fs::path(objects).parent_path();
  const std::string prefix = fs::path(objects).filename().string() + ".tmp-";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind(prefix, 0) == 0) (void)ForceRemoveAll(it->path().string());
  }
}

}  // namespace

Result<std::string> EnsurePrunedObjects(const std::string& source_git_dir, std::string_view base_commit,
                                        const std::string& pool_directory) {
  EnsureLibgit2();
  const std::string objects = pool_directory + "/objects";
  if (IsBuilt(objects, base_commit)) return objects;
  const std::string lock_path = pool_directory + "/objects.lock";
  UniqueFd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!lock.valid() || ::flock(lock.get(), LOCK_EX) != 0) {
    return IoError("cannot lock " + lock_path + ": " + std::strerror(errno));
  }
  if (IsBuilt(objects, base_commit)) return objects;  // another process built it meanwhile
  RemoveStaleTemps(objects);
  SG_RETURN_IF_ERROR(Build(source_git_dir, base_commit, objects));
  return objects;
}

}  // namespace seragen::repo::internal
