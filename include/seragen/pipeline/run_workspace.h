// The real WorkspaceFactory: a working-copy pool per repository, a
// sandboxed command runner per rollout (bubblewrap, or unconfined when the
// user opted in), and the agent's tools bound to the copy.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/env/bytecode_layer.h"
#include "seragen/env/environment.h"
#include "seragen/pipeline/workspace.h"
#include "seragen/repo/repository.h"
#include "seragen/repo/working_copy_pool.h"
#include "seragen/sandbox/command_runner.h"
#include "seragen/sandbox/sandbox_options.h"
#include "seragen/tools/tool_box.h"

namespace seragen::pipeline {

struct WorkspaceOptions {
  std::string sandbox_mode = "bwrap";  // bwrap | none
  sandbox::SandboxOptions sandbox;     // uid is set per slot from uid_base
  uid_t uid_base = 20000;
  // Locked uids, one per slot (sandbox::SlotUidLease); empty = uid_base + slot.
  std::vector<uid_t> slot_uids;
  // Slot uid -> its cgroup v2 cgroup.procs (absent: per-process limits only).
  std::map<uid_t, std::string> slot_cgroups;
  tools::ToolOptions tools;
  repo::WorkingCopyPoolOptions pool;  // pool_dir is a parent; one sub-directory per repo
  std::size_t max_patch_bytes = 0;    // diff size limit (repo::DiffOptions::max_bytes); 0 = none
  // Repository name -> its execution environment (absent: host root, no setup).
  std::map<std::string, env::EnvironmentSpec> environments;
  // Repository name -> its environment.test_command (absent: none), shown in
  // the rollout prompts.
  std::map<std::string, std::string> test_commands;
  // Where setup logs go (journal::EnvLogDir of the run).
  std::string env_log_dir;
  // Node-wide directory of compiled Python bytecode (env/bytecode_cache.h),
  // one entry per (repository, commit, environment), the lower layers of each
  // rollout's own writable layer at env::kPycachePrefix (env/bytecode_layer.h;
  // bwrap as root only); "" = none (each rollout compiles).
  std::string bytecode_cache_dir;
};

// True when every directory from `path` up to / lets other users through
// (the sandbox's slot uids resolve working-copy and object paths as others).
bool SearchableByOthers(const std::string& path);

// The directory under the environment cache that a run whose slots hold
// `group` (sandbox::SandboxGroup) keeps its prefixes and image roots in:
// `cache_dir`/group-<group>, root:`group` 0750 under a root:root 0711
// `cache_dir` (env::GuardGroupCacheDir), so the sandbox uids can reach what
// is bound from it, no other host user can enter it, and runs of another
// uid base keep their own. kFailedPrecondition when a directory above it
// lacks o+x, or it is a link or another user's.
// `key` names the directory in errors (the config key, or what it holds).
Result<std::string> CloseCacheDir(const std::string& cache_dir, gid_t group,
                                  std::string_view key = "environment.cache_dir");

class RunWorkspaceFactory final : public WorkspaceFactory {
 public:
  // `resources` must outlive the factory. Pools are created lazily (first
  // Acquire for a repository), from `repos` (name → open repository).
  RunWorkspaceFactory(std::map<std::string, std::shared_ptr<repo::Repository>> repos,
                      const tools::ToolResources* resources, WorkspaceOptions options);
  Result<std::unique_ptr<Workspace>> Acquire(const callgraph::PlannedTask& task, int slot) override;

  // What `seragen env check` shows: the sandbox a rollout of `task` in `slot`
  // gets, and `command` run once in it, in a leased working copy.
  struct CheckOutcome {
    sandbox::SandboxOptions sandbox;
    sandbox::CommandResult result;
    std::string system;               // PRETTY_NAME of the root's /etc/os-release; "" when unknown
    std::string root_id;              // "image:<manifest digest>", a rootfs path, or "" for the host root
    bool prepared_from_cache = true;  // no setup command ran (cached prefix, or no setup)
    double prepare_seconds = 0;       // taking the working copy and building or finding the environment
    double check_seconds = 0;         // the command itself
  };
  Result<CheckOutcome> RunCheck(const callgraph::PlannedTask& task, int slot, const std::string& command);

  // "<repo>@<commit prefix>" of every environment whose setup failed so far
  // (each is also logged once, at ERROR, with its log and what to do).
  std::vector<std::string> FailedSetups();

  // The shared bytecode of a (repository, commit): the rollout layer's lower
  // layers, topmost first, and every directory they hold.
  struct BytecodeEntries {
    std::vector<std::string> lowers;
    std::vector<std::string> dirs;
  };

 private:
  Result<repo::WorkingCopyPool*> PoolFor(const callgraph::PlannedTask& task);
  // The prepared environment's root_id of `repo` ("" before preparation or without one).
  std::string RootIdentity(const std::string& repo);
  // The rollout sandbox of `task` in `slot` (uid, cgroup, environment), and
  // its shared bytecode (null: none).
  Result<sandbox::SandboxOptions> SandboxFor(const callgraph::PlannedTask& task, int slot, repo::WorkingCopyPool& pool,
                                             std::shared_ptr<const BytecodeEntries>& bytecode);
  // Applies the task's repository environment to `sb` (root, variables, the
  // prepared prefix read-only), running setup first when not yet done for
  // this (repository, commit). A setup failure is kept and returned to every
  // later task of that repository and commit without running setup again.
  Status ApplyEnvironment(const callgraph::PlannedTask& task, repo::WorkingCopyPool& pool, sandbox::SandboxOptions& sb);
  struct Prepared {
    env::EnvironmentSpec spec;  // with the image resolved to its rootfs
    std::string prefix_dir;     // "" when there are no setup commands
  };
  Result<Prepared> PrepareFor(const callgraph::PlannedTask& task, env::EnvironmentSpec spec,
                              repo::WorkingCopyPool& pool, const sandbox::SandboxOptions& sb);
  // The bytecode cache entries of the task's (repository, commit,
  // environment): the repository's over the library's, compiled first (once,
  // in a leased copy, sandboxed) when missing. Never fails the task: null
  // without a cache (not root, the compile failed, the environment chose its
  // own prefix), a failure logged once.
  std::shared_ptr<const BytecodeEntries> BytecodeFor(const callgraph::PlannedTask& task, repo::WorkingCopyPool& pool,
                                                     const sandbox::SandboxOptions& sb);
  // The entries for `task` (null without a cache).
  std::shared_ptr<const BytecodeEntries> CompileBytecode(const callgraph::PlannedTask& task,
                                                         repo::WorkingCopyPool& pool,
                                                         const sandbox::SandboxOptions& sb);
  // The lease's own writable layer over `bytecode`, bound read-write at
  // env::kPycachePrefix in `sb`; clears a layer a killed process left on the
  // copy. Without one (no cache, the mount failed: warned once) `sb` is left
  // as it was and the rollout writes its pycs into its own /tmp.
  std::unique_ptr<env::BytecodeLayer> LayerFor(const BytecodeEntries* bytecode, const repo::WorkingCopyLease& lease,
                                               sandbox::SandboxOptions& sb);
  // A leased copy of `task` in `slot` ready for commands: its sandbox as the
  // runner got it, the lease, its bytecode layer (declared after the lease, so
  // destroyed before it) and the runner. `rollout_tmp`: the copy's own /tmp
  // serves every command (a rollout); otherwise each command gets a fresh one.
  struct ReadyLease {
    sandbox::SandboxOptions sb;
    repo::WorkingCopyLease lease;
    std::unique_ptr<env::BytecodeLayer> layer;
    std::unique_ptr<sandbox::CommandRunner> runner;
  };
  Result<ReadyLease> Ready(const callgraph::PlannedTask& task, int slot, bool rollout_tmp);

  std::map<std::string, std::shared_ptr<repo::Repository>> repos_;
  const tools::ToolResources* resources_;
  WorkspaceOptions options_;
  std::mutex mu_;
  std::mutex env_mu_;                                 // held while an environment is prepared (one setup at a time)
  std::map<std::string, Result<Prepared>> prepared_;  // repo@commit -> environment or setup error
  std::size_t setups_run_ = 0;                        // environments built here (not from the cache); env_mu_
  std::size_t SetupsRun();
  std::mutex failed_mu_;                                                 // not env_mu_: a setup holds that for minutes
  std::vector<std::string> failed_setups_;                               // guarded by failed_mu_
  std::map<std::string, std::unique_ptr<repo::WorkingCopyPool>> pools_;  // key: repo + commit
  std::mutex bytecode_mu_;                                               // held while bytecode is compiled
  // repo@commit -> the bytecode cache's entries (null: no cache); bytecode_mu_
  std::map<std::string, std::shared_ptr<const BytecodeEntries>> bytecode_;
  std::atomic<bool> layer_warned_{false};  // a failed layer mount is logged once
};

}  // namespace seragen::pipeline
