// Start-of-run steps for the sandbox: locking one uid per slot, per-slot
// memory cgroups, where working copies live, and the bubblewrap self-check.
// Root-only steps say so; all of them log what they decided.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "seragen/base/log.h"
#include "seragen/base/result.h"
#include "seragen/config/config.h"
#include "seragen/pipeline/run_workspace.h"
#include "seragen/sandbox/slot_uids.h"

namespace seragen::cli {

// Locks one sandbox uid per slot for this run (skipping uids another run on
// this node holds) and kills leftover processes of those uids. Root only.
Result<sandbox::SlotUidLease> ClaimSlotUids(const config::Config& cfg, const log::Logger& logger);

// Bounds each slot's total memory with a cgroup v2 child when available;
// otherwise logs why and leaves the per-process RLIMIT_AS as the only bound.
std::map<uid_t, std::string> PrepareSlotCgroups(const config::Config& cfg, const std::vector<uid_t>& uids,
                                                const log::Logger& logger);

// Working copies must sit below directories every slot uid can enter (bwrap
// resolves the copy's path as that uid). `configured` when set; else
// RUN_DIR/workcopies when RUN_DIR's ancestors allow it; otherwise a per-run
// directory under /tmp (created here; an error names it), said in the log.
Result<std::string> ChooseWorkcopyDir(const std::string& run_dir, const std::string& configured,
                                      const log::Logger& logger);

// Runs the sandbox self-check as slot 0's uid (bwrap mode), or warns that
// commands run unconfined (mode none). The error explains how to opt out.
Status CheckSandbox(const pipeline::WorkspaceOptions& env, const log::Logger& logger);

}  // namespace seragen::cli
