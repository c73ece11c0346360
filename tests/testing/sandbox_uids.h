// Sandbox uids of tests that run commands as a slot uid (bubblewrap, or the
// unconfined runner as root), and the wait for a uid's processes to go.
//
// A `seragen run` on the node leases its slots' uids (sandbox::SlotUidLease)
// and kills whatever processes those uids have left; a test that runs as a
// uid without leasing it can lose its commands to such a run (the e2e tests
// start them). LeasedUids takes the same locks, so a run skips the test's uids.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "seragen/sandbox/slot_uids.h"

namespace seragen::testing {

// Holds the node locks of uids first, first+1, ..., first+count-1 for as long
// as it lives. The uids are the ones asked for (tests compare outputs with
// them): a uid locked by another process is waited for (up to two minutes,
// then std::runtime_error naming it and the lock directory). Leases within
// one process are shared, so two fixtures may run as the same uid.
class LeasedUids {
 public:
  explicit LeasedUids(uid_t first, int count = 1);
  const std::vector<uid_t>& uids() const { return uids_; }
  uid_t uid() const { return uids_.front(); }

 private:
  std::vector<std::shared_ptr<const sandbox::SlotUidLease>> leases_;
  std::vector<uid_t> uids_;
};

// Where LeasedUids locks: sandbox::SlotUidOptions' default directory (the one
// `seragen run` uses) as root; without root (no uid switch, nothing to share)
// a directory of this user under /tmp.
std::string TestUidLockDir();

// True when the lock of `uid` in TestUidLockDir() is held, by this process or another.
bool UidLeased(uid_t uid);

// The number of live processes of `uid` left after waiting up to `bound` for
// them to go (0 as soon as none is left; -1 when /proc cannot be read).
int LiveProcessesAfter(uid_t uid, std::chrono::milliseconds bound);

}  // namespace seragen::testing
