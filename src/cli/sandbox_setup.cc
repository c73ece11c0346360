#include "cli/sandbox_setup.h"

#include <sys/stat.h>

#include <set>

#include "cli/options_from_config.h"
#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/journal/run_paths.h"
#include "seragen/sandbox/self_check.h"
#include "seragen/sandbox/slot_cgroup.h"
#include "seragen/sandbox/unconfined_runner.h"

namespace seragen::cli {

Result<sandbox::SlotUidLease> ClaimSlotUids(const config::Config& cfg, const log::Logger& logger) {
  sandbox::SlotUidOptions opts = SlotUidOptionsFrom(cfg);
  SG_ASSIGN_OR_RETURN(sandbox::SlotUidLease lease, sandbox::SlotUidLease::Acquire(opts));
  const std::set<uid_t> busy = sandbox::UidsWithProcesses();
  for (uid_t uid : lease.uids()) {
    if (!busy.count(uid)) continue;
    auto killed = sandbox::KillProcessesOfUid(uid);
    if (!killed.ok()) return killed.status().WithContext("cleaning up sandbox uid " + std::to_string(uid));
    if (*killed > 0) logger.Warn("killed {} leftover processes of sandbox uid {} (from an earlier run)", *killed, uid);
  }
  if (lease.uids().front() != opts.uid_base ||
      lease.uids().back() != opts.uid_base + static_cast<uid_t>(opts.slots - 1)) {
    logger.Info("sandbox uids {}..{} (others from {} are in use by another run on this node)", lease.uids().front(),
                lease.uids().back(), opts.uid_base);
  }
  return lease;
}

std::map<uid_t, std::string> PrepareSlotCgroups(const config::Config& cfg, const std::vector<uid_t>& uids,
                                                const log::Logger& logger) {
  std::map<uid_t, std::string> out;
  if (cfg.sandbox.slot_memory_mb <= 0) return out;
  auto slots = sandbox::CgroupV2Slots::Detect(cfg.sandbox.cgroup_parent);
  if (!slots.ok()) {
    logger.Warn(
        "no per-slot memory bound ({}); each sandboxed process is limited to sandbox.memory_mb = {} MB of "
        "address space instead",
        slots.status().message(), cfg.sandbox.memory_mb);
    return out;
  }
  const std::uint64_t bytes = static_cast<std::uint64_t>(cfg.sandbox.slot_memory_mb) << 20;
  for (uid_t uid : uids) {
    auto procs = (*slots)->PrepareSlot(uid, bytes);
    if (!procs.ok()) {
      logger.Warn("no per-slot memory bound ({}); falling back to sandbox.memory_mb per process",
                  procs.status().message());
      return {};
    }
    out[uid] = *procs;
  }
  logger.Info("each slot's processes share {} MB of memory (cgroup v2 under {})", cfg.sandbox.slot_memory_mb,
              cfg.sandbox.cgroup_parent);
  return out;
}

Result<std::string> ChooseWorkcopyDir(const std::string& run_dir, const std::string& configured,
                                      const log::Logger& logger) {
  if (!configured.empty()) return configured;
  if (pipeline::SearchableByOthers(run_dir)) return journal::WorkcopiesDir(run_dir);
  std::string base = "/tmp/seragen-workcopies";
  std::string dir = base + "/" + ContentId({run_dir}, 16);
  // Without it every task would fail later at its first working copy.
  Status made = MakeDirs(dir);
  if (!made.ok()) return made.WithContext("creating the working-copy directory " + dir);
  ::chmod(base.c_str(), 0711);
  ::chmod(dir.c_str(), 0711);
  logger.Info("{} is not searchable by the sandbox uids; working copies go to {}", run_dir, dir);
  return dir;
}

Status CheckSandbox(const pipeline::WorkspaceOptions& env, const log::Logger& logger) {
  if (env.sandbox_mode != "bwrap") {
    logger.Warn("{}", sandbox::UnconfinedWarningText());
    return Status::Ok();
  }
  sandbox::SandboxOptions probe = env.sandbox;
  probe.uid = !env.slot_uids.empty() ? env.slot_uids.front() : sandbox::SandboxUidForSlot(env.uid_base, 0);
  probe.gid = probe.uid;
  return sandbox::SelfCheck(probe);
}

}  // namespace seragen::cli
