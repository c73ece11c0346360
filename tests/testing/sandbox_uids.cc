#include "testing/sandbox_uids.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "seragen/base/unique_fd.h"

namespace seragen::testing {
namespace {

std::string LockPath(uid_t uid) { return TestUidLockDir() + "/uid-" + std::to_string(uid) + ".lock"; }

// The process's lease of `uid`, taken when no fixture of this process holds it.
std::shared_ptr<const sandbox::SlotUidLease> LeaseOne(uid_t uid) {
  static std::mutex mu;
  static std::map<uid_t, std::weak_ptr<const sandbox::SlotUidLease>> held;
  std::lock_guard<std::mutex> lock(mu);
  if (auto lease = held[uid].lock()) return lease;
  sandbox::SlotUidOptions options;
  options.lock_dir = TestUidLockDir();
  options.uid_base = uid;
  options.max_candidates = 1;
  const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  for (;;) {
    Result<sandbox::SlotUidLease> r = sandbox::SlotUidLease::Acquire(options);
    if (r.ok()) {
      auto lease = std::make_shared<const sandbox::SlotUidLease>(std::move(r).value());
      held[uid] = lease;
      return lease;
    }
    if (r.status().code() != StatusCode::kResourceExhausted || std::chrono::steady_clock::now() > until) {
      throw std::runtime_error("cannot lease sandbox uid " + std::to_string(uid) + " in " + options.lock_dir + ": " +
                               r.status().ToString());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

LeasedUids::LeasedUids(uid_t first, int count) {
  for (int i = 0; i < count; ++i) {
    uids_.push_back(first + static_cast<uid_t>(i));
    leases_.push_back(LeaseOne(uids_.back()));
  }
}

std::string TestUidLockDir() {
  return ::geteuid() == 0 ? sandbox::SlotUidOptions{}.lock_dir
                          : "/tmp/seragen-test-uids-" + std::to_string(::geteuid());
}

bool UidLeased(uid_t uid) {
  UniqueFd fd(::open(LockPath(uid).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return false;  // never locked on this node
  return ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
}

int LiveProcessesAfter(uid_t uid, std::chrono::milliseconds bound) {
  const auto until = std::chrono::steady_clock::now() + bound;
  int live = sandbox::CountProcessesOfUid(uid);
  while (live > 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    live = sandbox::CountProcessesOfUid(uid);
  }
  return live;
}

}  // namespace seragen::testing
