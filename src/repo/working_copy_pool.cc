#include "seragen/repo/working_copy_pool.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <vector>

#include "repo/copy_ownership.h"
#include "repo/pruned_objects.h"
#include "repo/working_copy_ops.h"
#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/log.h"
#include "seragen/base/unique_fd.h"

namespace seragen::repo {

namespace fs = std::filesystem;

namespace {

const log::Logger& Log() {
  static const log::Logger logger("repo");
  return logger;
}

std::string PoolKey(const std::string& objects_dir, const std::string& commit) {
  // ".../name/.git/objects" or ".../name.git/objects" -> "name"
  fs::path p(objects_dir);
  fs::path parent = p.parent_path();
  std::string stem = parent.filename().string();
  if (stem == ".git") stem = parent.parent_path().filename().string();
  if (stem.size() > 4 && stem.substr(stem.size() - 4) == ".git") stem.resize(stem.size() - 4);
  std::string safe;
  for (char c : stem) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    safe += ok ? c : '_';
  }
  if (safe.size() > 48) safe.resize(48);
  if (safe.empty()) safe = "repo";
  return safe + "-" + Sha256Hex(objects_dir).substr(0, 8) + "-" + commit.substr(0, 12);
}

}  // namespace

struct WorkingCopyPool::State {
  std::string base_commit;
  std::string directory;
  std::string source_objects_dir;  // the pool's pruned store (EnsurePrunedObjects), which copies borrow
  WorkingCopyPoolOptions options;

  struct Owner {
    unsigned uid;
    unsigned gid;
    bool operator==(const Owner&) const = default;
  };
  struct Slot {
    bool leased = false;
    UniqueFd lock_fd;  // open while leased
    // Whom every entry of the copy belongs to (GiveTo), when known; written
    // only by the lease holder, read by TryClaim only while not leased.
    std::optional<Owner> owner;
  };
  std::mutex mu;
  std::condition_variable released;
  std::vector<Slot> slots;

  std::string CopyPath(std::size_t i) const { return directory + "/copy-" + std::to_string(i); }
  CopyPaths Paths(std::size_t i) const { return CopyPaths{CopyPath(i), CopyPath(i) + ".git", CopyPath(i) + ".tmp"}; }
  std::string LockPath(std::size_t i) const { return CopyPath(i) + ".lock"; }
  std::string CleanStamp(std::size_t i) const { return CopyPath(i) + ".clean"; }
  // What this pool writes in a clean stamp: the base commit, then a token of
  // this pool object, so a copy restored by another process is told apart.
  std::string stamp_token;
  std::string StampText() const { return base_commit + "\n" + stamp_token + "\n"; }

  // Under mu: claims a slot not leased here and not locked by another process.
  // Prefers a copy that belongs to uid `prefer_owner`, then any copy that
  // already exists. Returns false when none is free.
  bool TryClaim(std::optional<unsigned> prefer_owner, std::size_t* out) {
    for (int pass = 0; pass < 3; ++pass) {
      for (std::size_t i = 0; i < slots.size(); ++i) {
        if (slots[i].leased) continue;
        if (pass == 0 && (!prefer_owner || !slots[i].owner || slots[i].owner->uid != *prefer_owner)) continue;
        std::error_code ec;
        bool exists = fs::exists(CopyPath(i), ec);
        if ((pass < 2) != exists) continue;
        UniqueFd fd(::open(LockPath(i).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
        if (!fd.valid() || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) continue;
        slots[i].leased = true;
        slots[i].lock_fd = std::move(fd);
        *out = i;
        return true;
      }
    }
    return false;
  }

  void Unclaim(std::size_t i) {
    {
      std::lock_guard<std::mutex> lock(mu);
      slots[i].lock_fd.reset();  // drops the flock
      slots[i].leased = false;
    }
    released.notify_one();
  }

  Status Verify(std::size_t i) const {
    SG_ASSIGN_OR_RETURN(std::vector<std::string> dirty, DirtyPaths(Paths(i)));
    if (dirty.empty()) return Status::Ok();
    std::string sample;
    for (std::size_t k = 0; k < dirty.size() && k < 5; ++k) sample += (k ? ", " : "") + dirty[k];
    return FailedPreconditionError(CopyPath(i) + " differs from the base in " + std::to_string(dirty.size()) +
                                   " paths (" + sample + ")");
  }

  // Deletes copy i (work tree and git directory) and builds it again.
  Status Rebuild(std::size_t i) {
    CopyPaths copy = Paths(i);
    slots[i].owner.reset();  // every entry is root's again
    SG_RETURN_IF_ERROR(internal::ForceRemoveAll(copy.work_tree));
    SG_RETURN_IF_ERROR(internal::ForceRemoveAll(copy.git_dir));
    return internal::CreateWorkingCopy(copy, base_commit, source_objects_dir);
  }

  // Restores copy i in place; on failure deletes it so it is rebuilt later.
  // What the restore rewrote goes back to the copy's owner.
  Status Restore(std::size_t i) {
    CopyPaths copy = Paths(i);
    internal::RestoredScope scope;
    Status status = internal::RestoreCopy(copy, base_commit, source_objects_dir, options.verify_after_restore, &scope);
    if (status.ok()) SettleOwner(i, scope);
    if (!status.ok()) {
      Log().Warn("rebuilding working copy {}: {}", copy.work_tree, status.ToString());
      return Rebuild(i);
    }
    return Status::Ok();
  }

  // After a restore of claimed slot i: gives the rewritten paths back to the
  // copy's owner, or forgets the owner when they cannot be (a whole checkout).
  void SettleOwner(std::size_t i, const internal::RestoredScope& scope) {
    std::optional<Owner>& owner = slots[i].owner;
    if (!owner) return;
    if (scope.whole || !internal::GiveRestoredPaths(Paths(i), scope.paths, owner->uid, owner->gid).ok()) owner.reset();
  }

  // Gives claimed slot i to uid:gid (WorkingCopyLease::GiveTo).
  Status GiveTo(std::size_t i, Owner to) {
    std::optional<Owner>& owner = slots[i].owner;
    const bool known = owner == to;
    owner.reset();  // unknown until the change is complete
    SG_RETURN_IF_ERROR(known ? internal::AdoptKnownOwner(Paths(i), to.uid, to.gid)
                             : AdoptOwnership(Paths(i), to.uid, to.gid));
    owner = to;
    return Status::Ok();
  }

  // Brings claimed slot i to a clean state before handing it out, with a
  // fresh disposable .git in the work tree.
  Status Prepare(std::size_t i) {
    CopyPaths copy = Paths(i);
    std::error_code ec;
    bool rebuilt = false;
    // This pool object reset the agent's .git when it gave the copy back
    // (GiveBack), just before it stamped the copy clean.
    bool agent_git_fresh = false;
    if (!internal::CheckCopyIsReal(copy).ok()) {
      // Never built, half built, or made by an older layout: build from scratch.
      SG_RETURN_IF_ERROR(Rebuild(i));
      rebuilt = true;
    } else if (!fs::exists(CleanStamp(i), ec)) {
      // A previous holder died (or failed) before restoring it.
      Log().Info("restoring working copy {} left dirty by an earlier lease", copy.work_tree);
      slots[i].owner.reset();  // that holder may have been another process
      SG_RETURN_IF_ERROR(Restore(i));
    } else {
      // Only this pool's own stamp vouches for the owner it remembers.
      auto stamp = seragen::ReadFile(CleanStamp(i));
      agent_git_fresh = stamp.ok() && *stamp == StampText();
      if (!agent_git_fresh) slots[i].owner.reset();
      // Gone before anything is restored: if this prepare fails halfway, no
      // pool (ours or another process's) trusts an owner it remembers.
      fs::remove(CleanStamp(i), ec);
      if (ec) return IoError("cannot remove stamp " + CleanStamp(i) + ": " + ec.message());
      SG_RETURN_IF_ERROR(internal::EnsureAlternates(copy.git_dir, source_objects_dir));
      if (options.verify_on_acquire && !Verify(i).ok()) {
        agent_git_fresh = false;  // the idle copy was touched: trust none of it
        SG_RETURN_IF_ERROR(Restore(i));
      }
    }
    if (!rebuilt && !agent_git_fresh) {
      SG_RETURN_IF_ERROR(internal::ResetAgentGitDir(copy, base_commit, source_objects_dir));
    }
    // A /tmp left by a holder that died goes too: every lease starts with an empty one.
    SG_RETURN_IF_ERROR(internal::ForceRemoveAll(copy.tmp_dir));
    if (::mkdir(copy.tmp_dir.c_str(), 0700) != 0) {
      return IoError("cannot create " + copy.tmp_dir + ": " + std::strerror(errno));
    }
    fs::remove(CleanStamp(i), ec);
    if (ec) return IoError("cannot remove stamp " + CleanStamp(i) + ": " + ec.message());
    return Status::Ok();
  }

  Status GiveBack(std::size_t i) {
    Status status = Restore(i);
    // Also reset the agent's .git now, so an idle copy looks like a clean clone.
    if (status.ok()) status = internal::ResetAgentGitDir(Paths(i), base_commit, source_objects_dir);
    // The rollout's /tmp ends with it (without the stamp, the next Prepare retries).
    if (status.ok()) status = internal::ForceRemoveAll(Paths(i).tmp_dir);
    if (status.ok()) status = internal::WriteFileReplacing(CleanStamp(i), StampText());
    Unclaim(i);
    return status;
  }
};

WorkingCopyPool::WorkingCopyPool(std::shared_ptr<State> state) : state_(std::move(state)) {}
WorkingCopyPool::WorkingCopyPool(WorkingCopyPool&&) noexcept = default;
WorkingCopyPool& WorkingCopyPool::operator=(WorkingCopyPool&&) noexcept = default;
WorkingCopyPool::~WorkingCopyPool() = default;

Result<WorkingCopyPool> WorkingCopyPool::Create(const Repository& source, std::string_view base_commit,
                                                const WorkingCopyPoolOptions& options) {
  if (options.pool_dir.empty()) return InvalidArgumentError("working-copy pool_dir is empty");
  if (options.capacity == 0) return InvalidArgumentError("working-copy pool capacity must be at least 1");
  SG_ASSIGN_OR_RETURN(std::string commit, source.ResolveCommit(base_commit));
  auto state = std::make_shared<State>();
  state->base_commit = commit;
  state->options = options;
  state->stamp_token = std::to_string(::getpid()) + "-" +
                       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "-" +
                       std::to_string(reinterpret_cast<std::uintptr_t>(state.get()));
  std::error_code ec;
  std::string root = fs::absolute(options.pool_dir, ec).lexically_normal().string();
  state->directory = root + "/" + PoolKey(source.objects_dir(), commit);
  SG_RETURN_IF_ERROR(MakeDirs(state->directory));
  // Copies borrow only what the base commit reaches, never the source's store.
  SG_ASSIGN_OR_RETURN(state->source_objects_dir,
                      internal::EnsurePrunedObjects(source.git_dir(), commit, state->directory));
  state->slots.resize(options.capacity);
  return WorkingCopyPool(std::move(state));
}

Result<WorkingCopyLease> WorkingCopyPool::Acquire(std::chrono::milliseconds wait) {
  return AcquireFor(wait, std::nullopt);
}

Result<WorkingCopyLease> WorkingCopyPool::Acquire(std::chrono::milliseconds wait, unsigned prefer_owner) {
  return AcquireFor(wait, prefer_owner);
}

Result<WorkingCopyLease> WorkingCopyPool::AcquireFor(std::chrono::milliseconds wait,
                                                     std::optional<unsigned> prefer_owner) {
  State& s = *state_;
  std::size_t slot = 0;
  {
    std::unique_lock<std::mutex> lock(s.mu);
    auto deadline = std::chrono::steady_clock::now() + wait;
    while (!s.TryClaim(prefer_owner, &slot)) {
      // Another process may free a slot without notifying us: poll while waiting.
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        return ResourceExhaustedError("all " + std::to_string(s.slots.size()) + " working copies of " + s.directory +
                                      " are in use");
      }
      s.released.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(50)));
    }
  }
  Status prepared = s.Prepare(slot);
  if (!prepared.ok()) {
    s.Unclaim(slot);
    return prepared.WithContext("cannot prepare a working copy");
  }
  return WorkingCopyLease(state_, slot, s.Paths(slot));
}

const std::string& WorkingCopyPool::base_commit() const { return state_->base_commit; }
const std::string& WorkingCopyPool::directory() const { return state_->directory; }
const std::string& WorkingCopyPool::objects_dir() const { return state_->source_objects_dir; }
std::size_t WorkingCopyPool::capacity() const { return state_->slots.size(); }

WorkingCopyLease::WorkingCopyLease(std::shared_ptr<WorkingCopyPool::State> pool, std::size_t slot, CopyPaths paths)
    : pool_(std::move(pool)), slot_(slot), paths_(std::move(paths)), base_commit_(pool_->base_commit) {}

WorkingCopyLease::WorkingCopyLease(WorkingCopyLease&& other) noexcept
    : pool_(std::move(other.pool_)),
      slot_(other.slot_),
      paths_(std::move(other.paths_)),
      base_commit_(std::move(other.base_commit_)) {
  other.pool_.reset();
}

WorkingCopyLease& WorkingCopyLease::operator=(WorkingCopyLease&& other) noexcept {
  if (this != &other) {
    (void)Release();
    pool_ = std::move(other.pool_);
    other.pool_.reset();
    slot_ = other.slot_;
    paths_ = std::move(other.paths_);
    base_commit_ = std::move(other.base_commit_);
  }
  return *this;
}

WorkingCopyLease::~WorkingCopyLease() {
  Status status = Release();
  if (!status.ok()) Log().Warn("releasing working copy {}: {}", paths_.work_tree, status.ToString());
}

Status WorkingCopyLease::GiveTo(unsigned uid, unsigned gid) {
  if (!pool_) return FailedPreconditionError("working copy " + paths_.work_tree + " is released");
  return pool_->GiveTo(slot_, WorkingCopyPool::State::Owner{uid, gid});
}

Status WorkingCopyLease::Release() {
  if (!pool_) return Status::Ok();
  std::shared_ptr<WorkingCopyPool::State> pool = std::move(pool_);
  pool_.reset();
  return pool->GiveBack(slot_);
}

}  // namespace seragen::repo
