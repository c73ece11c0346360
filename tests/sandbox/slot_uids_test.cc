#include <catch2/catch.hpp>

#include <grp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "seragen/sandbox/slot_uids.h"
#include "testing/sandbox_uids.h"
#include "testing/temp_dir.h"

namespace seragen::sandbox {
namespace {

SlotUidOptions Options(const std::string& dir, int slots) {
  SlotUidOptions o;
  o.lock_dir = dir + "/locks";
  o.uid_base = 21300;
  o.slots = slots;
  o.max_candidates = 8;
  return o;
}

TEST_CASE("two runs on one node never share a sandbox uid", "[slot_uids]") {
  testing::TempDir dir;
  auto first = SlotUidLease::Acquire(Options(dir.path(), 3));
  REQUIRE(first.ok());
  CHECK(first->uids() == std::vector<uid_t>{21300, 21301, 21302});

  // A second run (another open file description) skips the held uids.
  auto second = SlotUidLease::Acquire(Options(dir.path(), 3));
  REQUIRE(second.ok());
  CHECK(second->uids() == std::vector<uid_t>{21303, 21304, 21305});

  // Not enough left: a clear error, not a shared uid.
  auto third = SlotUidLease::Acquire(Options(dir.path(), 3));
  REQUIRE_FALSE(third.ok());
  CHECK(third.status().code() == StatusCode::kResourceExhausted);
  CHECK(third.status().message().find("only 2 of 3") != std::string::npos);

  // Released uids are free again.
  second = InternalError("released");
  auto fourth = SlotUidLease::Acquire(Options(dir.path(), 3));
  REQUIRE(fourth.ok());
  CHECK(fourth->uids() == std::vector<uid_t>{21303, 21304, 21305});
}

TEST_CASE("a uid held by another process is skipped until that process dies", "[slot_uids]") {
  testing::TempDir dir;
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t holder = ::fork();
  if (holder == 0) {
    ::close(ready[0]);
    auto lease = SlotUidLease::Acquire(Options(dir.path(), 1));
    char c = lease.ok() ? '1' : '0';
    (void)!::write(ready[1], &c, 1);
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  ::close(ready[0]);
  REQUIRE(c == '1');
  {
    auto lease = SlotUidLease::Acquire(Options(dir.path(), 1));
    REQUIRE(lease.ok());
    CHECK(lease->uids() == std::vector<uid_t>{21301});
  }
  ::kill(holder, SIGKILL);
  int status;
  ::waitpid(holder, &status, 0);
  auto lease = SlotUidLease::Acquire(Options(dir.path(), 1));
  REQUIRE(lease.ok());
  CHECK(lease->uids() == std::vector<uid_t>{21300});
}

TEST_CASE("bad lease options are named", "[slot_uids]") {
  SlotUidOptions o;
  o.lock_dir = "relative/dir";
  auto r = SlotUidLease::Acquire(o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("sandbox.uid_lock_dir") != std::string::npos);
  o.lock_dir = "/tmp";
  o.slots = 0;
  CHECK_FALSE(SlotUidLease::Acquire(o).ok());
}

// Starts a detached `sleep` running as `uid` (a straggler of a crashed run).
pid_t StartStraggler(uid_t uid) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    if (::setgroups(0, nullptr) != 0 || ::setresgid(uid, uid, uid) != 0 || ::setresuid(uid, uid, uid) != 0) {
      ::_exit(1);
    }
    ::execl("/bin/sleep", "sleep", "300", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

TEST_CASE("stragglers of a slot uid are killed, and nothing of other uids", "[slot_uids]") {
  REQUIRE(::geteuid() == 0);
  const testing::LeasedUids leased(21310, 2);  // as a run would before killing
  const uid_t uid = 21310;
  const uid_t other = 21311;
  pid_t a = StartStraggler(uid);
  pid_t b = StartStraggler(uid);
  pid_t c = StartStraggler(other);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while ((CountProcessesOfUid(uid) < 2 || CountProcessesOfUid(other) < 1) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(CountProcessesOfUid(uid) == 2);
  CHECK(UidsWithProcesses().count(uid) == 1);
  auto killed = KillProcessesOfUid(uid);
  REQUIRE(killed.ok());
  CHECK(*killed == 2);
  int status;
  // Reap the test's own children so that they stop counting.
  ::waitpid(a, &status, 0);
  ::waitpid(b, &status, 0);
  CHECK(CountProcessesOfUid(uid) == 0);
  CHECK(UidsWithProcesses().count(uid) == 0);
  CHECK(CountProcessesOfUid(other) == 1);
  auto again = KillProcessesOfUid(uid);
  REQUIRE(again.ok());
  CHECK(*again == 0);
  CHECK_FALSE(KillProcessesOfUid(0).ok());
  ::kill(c, SIGKILL);
  ::waitpid(c, &status, 0);
}

}  // namespace
}  // namespace seragen::sandbox
