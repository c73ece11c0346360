// Process lifetime across a crash of the harness: a sandboxed command must
// not outlive the process that started it, however that process dies.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "sandbox/sandbox_test_util.h"
#include "seragen/sandbox/slot_uids.h"

namespace seragen::sandbox {
namespace {

using test::SandboxFixture;
// Live processes only: a reaper orphaned by the harness's death becomes a
// zombie of the uid until the host's init reaps it, which some container
// inits never do.

// Waits up to `bound` for every process of `uid` to be gone.
bool GoneWithin(uid_t uid, std::chrono::milliseconds bound) { return testing::LiveProcessesAfter(uid, bound) == 0; }

// Forks a stand-in for `seragen run`: it starts a sandboxed `sleep` from a
// worker thread (as the pipeline does) and blocks.
pid_t SpawnHarness(SandboxFixture& f, const std::string& command) {
  pid_t pid = ::fork();
  if (pid == 0) {
    std::thread worker([&f, command] {
      RunLimits limits = f.options.limits;
      limits.timeout = std::chrono::seconds(120);
      (void)f.runner->Run(command, limits);
    });
    worker.join();
    ::_exit(0);
  }
  return pid;
}

TEST_CASE("a SIGKILLed harness leaves no sandbox process behind, at any moment", "[lifetime]") {
  const uid_t uid = 21201;
  SandboxFixture f(uid);
  REQUIRE(CountProcessesOfUid(uid) == 0);
  // Kill at moments spread over the whole start-up of the sandbox (fork,
  // uid switch, bwrap's namespace setup, the command running).
  int leaked = 0;
  for (int i = 0; i < 30; ++i) {
    pid_t harness = SpawnHarness(f, "sleep 300");
    REQUIRE(harness > 0);
    std::this_thread::sleep_for(std::chrono::microseconds(i * 2000));
    ::kill(harness, SIGKILL);
    int status;
    ::waitpid(harness, &status, 0);
    // Generous: on a loaded 2-core machine (parallel builds) tearing down
    // bwrap's namespaces after SIGKILL has taken over 3 s; a leak stays forever.
    if (!GoneWithin(uid, std::chrono::seconds(10))) {
      ++leaked;
      // Clean up so that the next iteration starts from nothing.
      (void)testing::RunShell("pkill -KILL -U " + std::to_string(uid));
      GoneWithin(uid, std::chrono::seconds(3));
    }
  }
  CHECK(leaked == 0);
}

TEST_CASE("the command dies when the harness dies while it runs", "[lifetime]") {
  const uid_t uid = 21202;
  SandboxFixture f(uid);
  pid_t harness = SpawnHarness(f, "sleep 300");
  // Wait for the sleep to run.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (CountProcessesOfUid(uid) < 3 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(harness, SIGKILL);
  int status;
  ::waitpid(harness, &status, 0);
  CHECK(GoneWithin(uid, std::chrono::seconds(3)));
}

}  // namespace
}  // namespace seragen::sandbox
