#include "seragen/pipeline/run_workspace.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>

#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/log.h"
#include "seragen/env/bytecode_cache.h"
#include "seragen/env/group_cache_dir.h"
#include "seragen/env/profile.h"
#include "seragen/journal/run_paths.h"
#include "seragen/pipeline/toolbox_executor.h"
#include "seragen/pipeline/workspace_cpu.h"
#include "seragen/repo/diff.h"
#include "seragen/sandbox/incremental_copy_meter.h"
#include "seragen/sandbox/runner_factory.h"

namespace seragen::pipeline {
namespace {

// The patch file an evidence run applies, in the lease's /tmp.
constexpr const char* kEvidencePatch = "seragen-evidence.diff";

// Applies `patch` to a fresh copy from inside its sandbox (the host never
// writes into a work tree after paths the agent chose): the patch goes into
// the lease's /tmp, still empty (no command has run in it), then `git apply`,
// or `patch` where the root has no git, reads it there.
Status ApplyPatchInSandbox(sandbox::CommandRunner& runner, const std::string& host_tmp, const std::string& patch) {
  if (host_tmp.empty()) return FailedPreconditionError("the working copy has no /tmp to hand the patch over");
  SG_RETURN_IF_ERROR(WriteFileAtomic(host_tmp + "/" + kEvidencePatch, patch));
  const std::string file = std::string("/tmp/") + kEvidencePatch;
  sandbox::RunLimits limits;
  limits.timeout = std::chrono::minutes(2);
  SG_ASSIGN_OR_RETURN(sandbox::CommandResult r,
                      runner.Run(sandbox::CommandRequest("if command -v git >/dev/null; then git apply "
                                                         "--whitespace=nowarn " +
                                                         file + "; else patch -p1 --batch --silent -i " + file +
                                                         "; fi; status=$?; rm -f " + file + "; exit $status"),
                                 limits));
  if (r.exit_code == 0) return Status::Ok();
  return FailedPreconditionError("the patch does not apply: " + r.output.substr(0, 500));
}

// A runner that counts the commands it starts and adds the CPU its caller
// spends in each to WorkspaceCpuTotals.
class PhaseTimedRunner final : public sandbox::CommandRunner {
 public:
  explicit PhaseTimedRunner(std::unique_ptr<sandbox::CommandRunner> inner) : inner_(std::move(inner)) {}
  Result<sandbox::CommandResult> Run(const sandbox::CommandRequest& request,
                                     const sandbox::RunLimits& limits) override {
    ScopedPhaseCpu timed(WorkspacePhase::kCommand);
    ++started_;
    return inner_->Run(request, limits);
  }
  std::string VisibleRoot() const override { return inner_->VisibleRoot(); }
  std::string Kind() const override { return inner_->Kind(); }
  std::uint64_t started() const { return started_; }

 private:
  std::unique_ptr<sandbox::CommandRunner> inner_;
  std::atomic<std::uint64_t> started_{0};
};

// The rollout's disk meter, its CPU added to WorkspaceCpuTotals.
class PhaseTimedMeter final : public sandbox::CopyMeter {
 public:
  explicit PhaseTimedMeter(std::vector<std::string> roots) : inner_(std::move(roots)) {}
  Result<sandbox::CopyUsage> Measure(std::uint64_t limit_bytes, std::uint64_t max_entries) override {
    ScopedPhaseCpu timed(WorkspacePhase::kMeter);
    return inner_.Measure(limit_bytes, max_entries);
  }
  // The first, whole walk, which belongs to taking the copy (untimed here).
  void FirstWalk(std::uint64_t limit_bytes, std::uint64_t max_entries) {
    (void)inner_.Measure(limit_bytes, max_entries);
  }

 private:
  sandbox::IncrementalCopyMeter inner_;
};

// One rollout's world: the lease (restored when released), the command runner
// and the tools bound to the copy.
class LeasedWorkspace final : public Workspace, public PatchSource {
 public:
  LeasedWorkspace(repo::WorkingCopyLease lease, std::unique_ptr<env::BytecodeLayer> layer,
                  std::unique_ptr<sandbox::CommandRunner> runner, const tools::ToolResources* resources,
                  const tools::ToolOptions& options, std::size_t max_patch_bytes, std::string test_command)
      : lease_(std::move(lease)),
        layer_(std::move(layer)),
        runner_(std::make_unique<PhaseTimedRunner>(std::move(runner))),
        commands_settle_(runner_->Kind() == "bwrap"),
        test_command_(std::move(test_command)),
        meter_(MeteredRoots(lease_.paths())),
        box_(resources, runner_.get(), lease_.path(), this, options, &meter_),
        executor_(&box_, resources) {
    diff_options_.max_bytes = max_patch_bytes;
    // The meter's one whole walk, before the first command: after each
    // command it then looks only at what changed.
    if (options.max_copy_bytes > 0) meter_.FirstWalk(options.max_copy_bytes, options.max_copy_entries);
    env::ProfileOptions profile_options;
    profile_options.mount_point = runner_->VisibleRoot();
    if (auto p = env::DetectProfile(lease_.path(), profile_options)) own_modules_ = std::move(p->own_modules);
  }

  ~LeasedWorkspace() override {
    ScopedPhaseCpu timed(WorkspacePhase::kRelease);
    if (layer_) (void)layer_->Release();  // what the rollout compiled goes with it
    (void)lease_.Release();
  }

  agent::ToolExecutor& tools() override { return executor_; }
  PatchSource& patch() override { return *this; }
  std::string repo_root() const override { return runner_->VisibleRoot(); }
  std::string test_command() const override { return test_command_; }
  std::vector<std::string> own_modules() const override { return own_modules_; }
  // The copy's patch, computed again only when something may have changed
  // the copy since the last one (see Changes).
  Result<std::string> CurrentPatch() override {
    ScopedPhaseCpu timed(WorkspacePhase::kDiff);
    const std::uint64_t changes = Changes();
    if (last_patch_ && last_patch_changes_ == changes) return *last_patch_;
    Result<std::string> patch = repo::DiffAgainstBase(lease_.paths(), lease_.base_commit(), diff_options_);
    last_patch_.reset();
    if (commands_settle_ && patch.ok()) {  // a failure may pass: it is tried again
      last_patch_ = *patch;
      last_patch_changes_ = changes;
    }
    return patch;
  }
  Status ApplyPatch(const std::string& patch) override {
    return ApplyPatchInSandbox(*runner_, lease_.paths().tmp_dir, patch);
  }
  Result<sandbox::CommandResult> RunCommand(const std::string& command, const sandbox::RunLimits& limits) override {
    return runner_->Run(sandbox::CommandRequest(command), limits);
  }

 private:
  // The copy and the rollout's /tmp count against one disk bound
  // (sandbox.max_copy_mb); the bytecode layer is bounded by its own tmpfs.
  static std::vector<std::string> MeteredRoots(const repo::CopyPaths& paths) {
    std::vector<std::string> roots{paths.work_tree};
    if (!paths.tmp_dir.empty()) roots.push_back(paths.tmp_dir);
    return roots;
  }

  // What may have changed the copy so far: tool calls other than
  // submissions (the editor writes from the host) and sandboxed commands
  // (the bash tool's, ApplyPatch, RunCommand). Nothing else writes to a
  // leased copy, and under bubblewrap nothing a command started outlives it
  // (its PID namespace ends with it), so while this count stands still the
  // copy does too. Unconfined commands may leave processes behind: there
  // every patch is computed afresh (commands_settle_ false).
  std::uint64_t Changes() const { return executor_.possible_writes() + runner_->started(); }

  repo::WorkingCopyLease lease_;
  std::unique_ptr<env::BytecodeLayer> layer_;  // the rollout's writable bytecode, if any
  std::unique_ptr<PhaseTimedRunner> runner_;
  bool commands_settle_;
  std::optional<std::string> last_patch_;
  std::uint64_t last_patch_changes_ = 0;
  std::string test_command_;
  std::vector<std::string> own_modules_;
  PhaseTimedMeter meter_;
  tools::ToolBox box_;
  ToolBoxExecutor executor_;
  repo::DiffOptions diff_options_;
};

// Runs setup commands in a sandbox over one working copy, the prefix writable.
class SandboxSetupRunner final : public env::SetupRunner {
 public:
  SandboxSetupRunner(sandbox::SandboxMode mode, sandbox::SandboxOptions sb, std::string copy, std::string prefix,
                     bool network, int max_seconds = 1800)
      : mode_(mode), sb_(std::move(sb)), copy_(std::move(copy)), prefix_(std::move(prefix)) {
    sb_.share_network = network;
    sb_.limits.timeout = std::chrono::seconds(max_seconds);
    sb_.limits.resources.cpu_seconds = max_seconds;
  }
  Result<sandbox::CommandResult> Run(const std::string& command, const std::string& prefix_host_dir) override {
    if (::geteuid() == 0) (void)::chown(prefix_host_dir.c_str(), sb_.uid, sb_.gid);
    sandbox::SandboxOptions sb = sb_;
    sb.binds.push_back({prefix_host_dir, prefix_, true});
    SG_ASSIGN_OR_RETURN(std::unique_ptr<sandbox::CommandRunner> runner, sandbox::CreateRunner(mode_, sb, copy_));
    return runner->Run(sandbox::CommandRequest(command), sb.limits);
  }

 private:
  sandbox::SandboxMode mode_;
  sandbox::SandboxOptions sb_;
  std::string copy_;
  std::string prefix_;
};

// As root, hands the copy to the slot's uid while keeping the index's stat
// cache valid (a plain chown would make every later status/diff re-hash every
// file); a copy that slot had before changes hands only where root wrote since
// (WorkingCopyLease::GiveTo). Without root the sandbox runs as this user, who
// owns the copy already (bwrap maps it to the slot uid inside), and could not
// chown it anyway.
bool GivesToSandbox(sandbox::SandboxMode mode) { return mode == sandbox::SandboxMode::kBwrap && ::geteuid() == 0; }
Status AdoptForSandbox(sandbox::SandboxMode mode, repo::WorkingCopyLease& lease, const sandbox::SandboxOptions& sb) {
  if (!GivesToSandbox(mode)) return Status::Ok();
  return lease.GiveTo(sb.uid, sb.gid);
}

// After AdoptForSandbox: a copy it gave to the slot is not walked again.
sandbox::CopyOwnership OwnershipAfterAdopt(sandbox::SandboxMode mode) {
  return GivesToSandbox(mode) ? sandbox::CopyOwnership::kGiven : sandbox::CopyOwnership::kChown;
}

// A copy for the sandbox `sb`, preferably one its uid had before (no walk).
Result<repo::WorkingCopyLease> AcquireFor(repo::WorkingCopyPool& pool, const sandbox::SandboxOptions& sb,
                                          std::chrono::milliseconds wait) {
  return pool.Acquire(wait, static_cast<unsigned>(sb.uid));
}

// The sandbox defaults with the environment's variables over them.
std::map<std::string, std::string> MergedEnv(const sandbox::SandboxOptions& sb, const env::EnvironmentSpec& spec) {
  return env::EnvironmentVariables(sb.env.empty() ? sandbox::DefaultSandboxEnv() : sb.env, spec);
}

}  // namespace

bool SearchableByOthers(const std::string& path) {
  for (std::filesystem::path p(path);; p = p.parent_path()) {
    struct stat st;
    if (::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH)) return false;
    if (p == p.parent_path() || p.empty()) return true;
  }
}

Result<std::string> CloseCacheDir(const std::string& cache_dir, gid_t group, std::string_view key) {
  const std::string parent = std::filesystem::path(cache_dir).lexically_normal().parent_path().string();
  if (!SearchableByOthers(parent)) {
    return FailedPreconditionError(std::string(key) + " " + cache_dir +
                                   " is not reachable by the sandbox uids: every directory above it needs o+x");
  }
  Result<std::string> mine = env::GuardGroupCacheDir(cache_dir, group);
  if (!mine.ok()) return mine.status().WithContext(std::string(key));
  return mine;
}

RunWorkspaceFactory::RunWorkspaceFactory(std::map<std::string, std::shared_ptr<repo::Repository>> repos,
                                         const tools::ToolResources* resources, WorkspaceOptions options)
    : repos_(std::move(repos)), resources_(resources), options_(std::move(options)) {}

Result<repo::WorkingCopyPool*> RunWorkspaceFactory::PoolFor(const callgraph::PlannedTask& task) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = task.repo + "@" + task.commit;
  auto it = pools_.find(key);
  if (it != pools_.end()) return it->second.get();
  auto repo = repos_.find(task.repo);
  if (repo == repos_.end())
    return NotFoundError("task " + task.task_id + " names unknown repository '" + task.repo + "'");
  const repo::Repository* source = repo->second.get();
  // The copies borrow the pool's own object store (beside them), never the
  // source's, so a source in a private directory needs no mirror.
  repo::WorkingCopyPoolOptions opts = options_.pool;
  opts.pool_dir = options_.pool.pool_dir + "/" + task.repo + "-" + task.commit.substr(0, 12);
  SG_ASSIGN_OR_RETURN(repo::WorkingCopyPool pool, repo::WorkingCopyPool::Create(*source, task.commit, opts));
  // Bytecode layers a killed run left mounted on copies that are not leased now.
  if (options_.sandbox_mode == "bwrap" && ::geteuid() == 0) env::ClearFreeBytecodeLayers(pool.directory());
  auto owned = std::make_unique<repo::WorkingCopyPool>(std::move(pool));
  repo::WorkingCopyPool* raw = owned.get();
  pools_[key] = std::move(owned);
  return raw;
}

Result<RunWorkspaceFactory::Prepared> RunWorkspaceFactory::PrepareFor(const callgraph::PlannedTask& task,
                                                                      env::EnvironmentSpec spec,
                                                                      repo::WorkingCopyPool& pool,
                                                                      const sandbox::SandboxOptions& sb) {
  if (spec.has_setup() || !spec.image.empty()) {
    SG_RETURN_IF_ERROR(MakeDirs(spec.cache_dir));
    if (options_.sandbox_mode == "bwrap" && ::geteuid() == 0) {
      SG_ASSIGN_OR_RETURN(spec.cache_dir, CloseCacheDir(spec.cache_dir, sandbox::SandboxGroup(options_.uid_base)));
    }
  }
  if (Status st = env::ResolveImage(spec); !st.ok()) {
    return Status(st.code(), "the environment image of repository '" + task.repo + "' is unusable: " + st.message());
  }
  if (!spec.has_setup()) return Prepared{spec, ""};
  SG_RETURN_IF_ERROR(MakeDirs(options_.env_log_dir));
  const std::string log = journal::EnvSetupLogPath(options_.env_log_dir, task.repo, task.commit);
  SG_ASSIGN_OR_RETURN(repo::WorkingCopyLease lease, AcquireFor(pool, sb, std::chrono::minutes(10)));
  SG_ASSIGN_OR_RETURN(sandbox::SandboxMode mode, sandbox::ParseSandboxMode(options_.sandbox_mode));
  SG_RETURN_IF_ERROR(AdoptForSandbox(mode, lease, sb));
  sandbox::SandboxOptions setup_sb = sb;
  setup_sb.rootfs = spec.rootfs;
  setup_sb.env = MergedEnv(sb, spec);
  SandboxSetupRunner runner(mode, setup_sb, lease.path(), spec.prefix, spec.setup_network);
  Result<env::PreparedEnvironment> prepared = env::PrepareEnvironment(spec, task.commit, runner, log);
  (void)lease.Release();
  if (prepared.ok() && !prepared->reused) ++setups_run_;
  if (!prepared.ok()) {
    return Status(prepared.status().code(),
                  "environment setup of repository '" + task.repo + "' failed: " + prepared.status().message());
  }
  return Prepared{spec, prepared->prefix_dir};
}

Status RunWorkspaceFactory::ApplyEnvironment(const callgraph::PlannedTask& task, repo::WorkingCopyPool& pool,
                                             sandbox::SandboxOptions& sb) {
  auto it = options_.environments.find(task.repo);
  if (it == options_.environments.end()) return Status::Ok();
  const std::string key = task.repo + "@" + task.commit;
  std::lock_guard<std::mutex> lock(env_mu_);
  auto done = prepared_.find(key);
  if (done == prepared_.end()) {
    done = prepared_.emplace(key, PrepareFor(task, it->second, pool, sb)).first;
    if (!done->second.ok()) {
      std::lock_guard<std::mutex> failed_lock(failed_mu_);
      failed_setups_.push_back(task.repo + "@" + task.commit.substr(0, 12));
      log::Logger("env").Error(
          "{}; every task of repository '{}' at {} fails until it is fixed: correct "
          "environment.setup (try it with `seragen env check`), then rerun",
          done->second.status().message(), task.repo, task.commit.substr(0, 12));
    }
  }
  if (!done->second.ok()) return done->second.status();
  const Prepared& p = *done->second;
  sb.rootfs = p.spec.rootfs;
  sb.env = MergedEnv(sb, p.spec);
  if (!p.prefix_dir.empty()) sb.binds.push_back({p.prefix_dir, p.spec.prefix, false});
  return Status::Ok();
}

std::size_t RunWorkspaceFactory::SetupsRun() {
  std::lock_guard<std::mutex> lock(env_mu_);
  return setups_run_;
}

std::vector<std::string> RunWorkspaceFactory::FailedSetups() {
  std::lock_guard<std::mutex> lock(failed_mu_);
  return failed_setups_;
}

std::string RunWorkspaceFactory::RootIdentity(const std::string& repo) {
  std::lock_guard<std::mutex> lock(env_mu_);
  for (const auto& [key, prepared] : prepared_) {
    if (key.rfind(repo + "@", 0) == 0 && prepared.ok()) return prepared->spec.root_id;
  }
  return "";
}

Result<sandbox::SandboxOptions> RunWorkspaceFactory::SandboxFor(const callgraph::PlannedTask& task, int slot,
                                                                repo::WorkingCopyPool& pool,
                                                                std::shared_ptr<const BytecodeEntries>& bytecode) {
  sandbox::SandboxOptions sb = options_.sandbox;
  sb.uid = options_.slot_uids.empty()
               ? sandbox::SandboxUidForSlot(options_.uid_base, slot)
               : options_.slot_uids[static_cast<std::size_t>(slot < 0 ? 0 : slot) % options_.slot_uids.size()];
  sb.gid = sb.uid;
  sb.groups = {sandbox::SandboxGroup(options_.uid_base)};  // may enter the environment cache
  if (auto cg = options_.slot_cgroups.find(sb.uid); cg != options_.slot_cgroups.end()) sb.cgroup_procs = cg->second;
  sb.extra_ro_binds.push_back(pool.objects_dir());
  // Before this task takes its own copy: setup and the bytecode compile borrow one from the same pool.
  SG_RETURN_IF_ERROR(ApplyEnvironment(task, pool, sb));
  bytecode = BytecodeFor(task, pool, sb);
  return sb;
}

std::shared_ptr<const RunWorkspaceFactory::BytecodeEntries> RunWorkspaceFactory::BytecodeFor(
    const callgraph::PlannedTask& task, repo::WorkingCopyPool& pool, const sandbox::SandboxOptions& sb) {
  if (options_.bytecode_cache_dir.empty() || options_.sandbox_mode != "bwrap") return nullptr;
  const std::map<std::string, std::string> env = sb.env.empty() ? sandbox::DefaultSandboxEnv() : sb.env;
  auto prefix = env.find("PYTHONPYCACHEPREFIX");
  if (prefix == env.end() || prefix->second != env::kPycachePrefix) return nullptr;  // the environment chose otherwise
  if (::geteuid() != 0) {
    if (!layer_warned_.exchange(true)) {
      log::Logger("env").Warn(
          "no shared Python bytecode cache: a rollout's writable layer over it is an overlay mount, which needs root; "
          "each rollout compiles its imports");
    }
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(bytecode_mu_);
  const std::string key = task.repo + "@" + task.commit;
  auto done = bytecode_.find(key);
  if (done == bytecode_.end()) done = bytecode_.emplace(key, CompileBytecode(task, pool, sb)).first;
  return done->second;
}

std::unique_ptr<env::BytecodeLayer> RunWorkspaceFactory::LayerFor(const BytecodeEntries* bytecode,
                                                                  const repo::WorkingCopyLease& lease,
                                                                  sandbox::SandboxOptions& sb) {
  const std::string dir = lease.path() + ".pyc";  // beside the copy, never in it
  if (bytecode == nullptr) {
    if (options_.sandbox_mode == "bwrap" && ::geteuid() == 0) (void)env::ClearBytecodeLayer(dir);  // a killed run's
    return nullptr;
  }
  Result<std::unique_ptr<env::BytecodeLayer>> layer =
      env::BytecodeLayer::Mount({dir, bytecode->lowers, bytecode->dirs, sb.uid, sb.gid});
  if (!layer.ok()) {
    if (!layer_warned_.exchange(true)) {
      log::Logger("env").Warn("no shared Python bytecode cache for the rollouts (each compiles its imports): {}",
                              layer.status().message());
    }
    return nullptr;
  }
  sb.binds.push_back({(*layer)->merged(), env::kPycachePrefix, true});
  return std::move(layer).value();
}

namespace {

// The entry of `o`, compiled now or reused; a failure is logged (the caller
// keeps it and never asks again in this run).
Result<env::BytecodeCache> TakeBytecode(const env::BytecodeCacheOptions& o, env::SetupRunner& compiler,
                                        const callgraph::PlannedTask& task) {
  const std::string what =
      o.scope == env::BytecodeScope::kLibrary ? "the interpreter's library for repository" : "repository";
  const auto start = std::chrono::steady_clock::now();
  Result<env::BytecodeCache> cache = env::PrepareBytecodeCache(o, compiler);
  const log::Logger logger("env");
  if (!cache.ok()) {
    logger.Warn("no shared Python bytecode of {} '{}' at {} (rollouts compile those imports): {}", what, task.repo,
                task.commit.substr(0, 12), cache.status().message());
  } else if (!cache->reused) {
    logger.Info("compiled the Python bytecode of {} '{}' at {} once for every rollout: {} pycs, {} MB, {:.1f} s; {}",
                what, task.repo, task.commit.substr(0, 12), cache->files, cache->bytes >> 20,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                cache->compiler_output);
  }
  return cache;
}

// `lowers` with every directory they hold (a rollout's layer makes them its
// uid's), or null (logged) when they cannot be listed.
std::shared_ptr<const RunWorkspaceFactory::BytecodeEntries> EntriesOf(std::vector<std::string> lowers) {
  std::set<std::string> dirs;
  for (const std::string& lower : lowers) {
    Result<std::vector<std::string>> listed = env::EntryDirectories(lower, 100000);
    if (!listed.ok()) {
      log::Logger("env").Warn("no shared Python bytecode cache: {}", listed.status().message());
      return nullptr;
    }
    dirs.insert(listed->begin(), listed->end());
  }
  auto entries = std::make_shared<RunWorkspaceFactory::BytecodeEntries>();
  entries->lowers = std::move(lowers);
  entries->dirs.assign(dirs.begin(), dirs.end());  // sorted: a parent before what it holds
  return entries;
}

}  // namespace

std::shared_ptr<const RunWorkspaceFactory::BytecodeEntries> RunWorkspaceFactory::CompileBytecode(
    const callgraph::PlannedTask& task, repo::WorkingCopyPool& pool, const sandbox::SandboxOptions& sb) {
  env::BytecodeCacheKeyParts parts{task.repo, task.commit, sb.rootfs, "", sb.env, sb.mount_point};
  for (const auto& b : sb.binds) parts.prefix_dir += b.host + "=" + b.inside + ";";
  env::BytecodeCacheOptions repo_o;
  repo_o.cache_dir = options_.bytecode_cache_dir;
  repo_o.key = env::BytecodeCacheKey(parts);
  repo_o.mount_point = sb.mount_point;
  env::BytecodeCacheOptions lib_o = repo_o;  // one library entry for every repository and commit
  parts.repo = parts.commit = "";
  lib_o.key = env::BytecodeCacheKey(parts);
  lib_o.scope = env::BytecodeScope::kLibrary;
  lib_o.mount_dirs = {sb.mount_point.substr(1)};
  // Only root gets here (BytecodeFor): the entries are bound from a group subtree.
  Result<std::string> group_dir =
      CloseCacheDir(repo_o.cache_dir, sandbox::SandboxGroup(options_.uid_base), "the bytecode cache");
  Status usable = group_dir.status();
  if (group_dir.ok()) repo_o.cache_dir = lib_o.cache_dir = *group_dir;
  Result<repo::WorkingCopyLease> lease =
      usable.ok() ? AcquireFor(pool, sb, std::chrono::minutes(10)) : Result<repo::WorkingCopyLease>(usable);
  if (lease.ok()) usable = AdoptForSandbox(sandbox::SandboxMode::kBwrap, *lease, sb);
  if (!lease.ok() || !usable.ok()) {
    log::Logger("env").Warn("no shared Python bytecode cache in {}: {}", repo_o.cache_dir,
                            (lease.ok() ? usable : lease.status()).message());
    return nullptr;
  }
  SandboxSetupRunner compiler(sandbox::SandboxMode::kBwrap, sb, lease->path(), env::kPycachePrefix, false, 300);
  Result<env::BytecodeCache> repo_cache = TakeBytecode(repo_o, compiler, task);
  // A repository without Python compiles no library either. Its entry may
  // still hold pycs (the compiler's own imports) but has no tree at the mount
  // point, which is what the rollout's bind needs.
  std::error_code ec;
  const bool python =
      repo_cache.ok() && repo_cache->files > 0 && std::filesystem::is_directory(repo_cache->dir + sb.mount_point, ec);
  Result<env::BytecodeCache> lib_cache =
      python ? TakeBytecode(lib_o, compiler, task) : Result<env::BytecodeCache>(NotFoundError("no Python"));
  (void)lease->Release();
  if (!python) return nullptr;
  // Both trees are laid out as the prefix: the repository's under the mount
  // point, where the library's holds an empty directory.
  std::vector<std::string> lowers{repo_cache->dir};
  if (lib_cache.ok() && lib_cache->files > 0) lowers.push_back(lib_cache->dir);
  return EntriesOf(std::move(lowers));
}

Result<RunWorkspaceFactory::ReadyLease> RunWorkspaceFactory::Ready(const callgraph::PlannedTask& task, int slot,
                                                                   bool rollout_tmp) {
  SG_ASSIGN_OR_RETURN(repo::WorkingCopyPool * pool, PoolFor(task));
  std::shared_ptr<const BytecodeEntries> bytecode;
  SG_ASSIGN_OR_RETURN(sandbox::SandboxOptions sb, SandboxFor(task, slot, *pool, bytecode));
  SG_ASSIGN_OR_RETURN(repo::WorkingCopyLease lease, AcquireFor(*pool, sb, std::chrono::seconds(60)));
  SG_ASSIGN_OR_RETURN(sandbox::SandboxMode mode, sandbox::ParseSandboxMode(options_.sandbox_mode));
  SG_RETURN_IF_ERROR(AdoptForSandbox(mode, lease, sb));
  if (rollout_tmp) sb.host_tmp = lease.paths().tmp_dir;
  std::unique_ptr<env::BytecodeLayer> layer = LayerFor(bytecode.get(), lease, sb);
  SG_ASSIGN_OR_RETURN(std::unique_ptr<sandbox::CommandRunner> runner,
                      sandbox::CreateRunner(mode, sb, lease.path(), OwnershipAfterAdopt(mode)));
  return ReadyLease{std::move(sb), std::move(lease), std::move(layer), std::move(runner)};
}

Result<std::unique_ptr<Workspace>> RunWorkspaceFactory::Acquire(const callgraph::PlannedTask& task, int slot) {
  ScopedPhaseCpu timed(WorkspacePhase::kAcquire);
  SG_ASSIGN_OR_RETURN(ReadyLease ready, Ready(task, slot, true));
  auto test_command = options_.test_commands.find(task.repo);
  return std::unique_ptr<Workspace>(new LeasedWorkspace(
      std::move(ready.lease), std::move(ready.layer), std::move(ready.runner), resources_, options_.tools,
      options_.max_patch_bytes, test_command == options_.test_commands.end() ? "" : test_command->second));
}

Result<RunWorkspaceFactory::CheckOutcome> RunWorkspaceFactory::RunCheck(const callgraph::PlannedTask& task, int slot,
                                                                        const std::string& command) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const std::size_t setups_before = SetupsRun();
  SG_ASSIGN_OR_RETURN(ReadyLease ready, Ready(task, slot, false));
  const sandbox::SandboxOptions& sb = ready.sb;
  sandbox::CommandRunner* runner = ready.runner.get();
  const Clock::time_point check_start = Clock::now();
  SG_ASSIGN_OR_RETURN(sandbox::CommandResult result, runner->Run(sandbox::CommandRequest(command), sb.limits));
  const Clock::time_point check_end = Clock::now();
  // Which system the root is, as the commands see it (an image's own /etc/os-release).
  SG_ASSIGN_OR_RETURN(
      sandbox::CommandResult system,
      runner->Run(sandbox::CommandRequest(". /etc/os-release 2>/dev/null && echo \"$PRETTY_NAME\""), sb.limits));
  if (ready.layer) (void)ready.layer->Release();  // before the lease
  (void)ready.lease.Release();
  std::string os = system.exit_code == 0 ? system.output.substr(0, 200) : "";
  while (!os.empty() && (os.back() == '\n' || os.back() == '\r')) os.pop_back();
  CheckOutcome out{sb, std::move(result), os.find('\n') == std::string::npos ? os : "", RootIdentity(task.repo)};
  out.prepared_from_cache = SetupsRun() == setups_before;
  out.prepare_seconds = std::chrono::duration<double>(check_start - start).count();
  out.check_seconds = std::chrono::duration<double>(check_end - check_start).count();
  return out;
}

}  // namespace seragen::pipeline
