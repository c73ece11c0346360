// Helpers for sandbox tests: a working copy the sandbox uid can use, and
// host-side probes (processes left behind).
#pragma once

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <dirent.h>

#include <fstream>
#include <memory>
#include <string>

#include "seragen/sandbox/bwrap_runner.h"
#include "seragen/sandbox/self_check.h"
#include "testing/sandbox_uids.h"
#include "testing/temp_dir.h"

namespace seragen::sandbox::test {

// Small limits so that bombs and hogs end quickly.
inline SandboxOptions SmallOptions(uid_t uid) {
  SandboxOptions o;
  o.uid = uid;
  o.gid = uid;
  o.limits.timeout = std::chrono::seconds(10);
  o.limits.output_cap_chars = 8192;
  o.limits.output_kill_bytes = 32ull * 1024 * 1024;
  o.limits.resources.cpu_seconds = 10;
  o.limits.resources.memory_mb = 512;
  o.limits.resources.max_processes = 48;
  o.limits.resources.max_file_mb = 16;
  o.tmp_size_mb = 64;
  return o;
}

// Number of host processes whose real uid is `uid`.
inline int CountProcessesOfUid(uid_t uid) {
  int count = 0;
  DIR* d = ::opendir("/proc");
  if (!d) return -1;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("Uid:", 0) == 0) {
        if (std::stoul(line.substr(4)) == uid) ++count;
        break;
      }
    }
  }
  ::closedir(d);
  return count;
}

// A temp working copy prepared for `uid`, plus its runner; `uid` is leased
// on the node while the fixture lives.
struct SandboxFixture {
  explicit SandboxFixture(uid_t uid, SandboxOptions opts) : leased(uid), options(std::move(opts)) {
    options.uid = uid;
    options.gid = uid;
    ::chmod(dir.path().c_str(), 0755);
    copy = dir.Sub("copy");
    ::mkdir(copy.c_str(), 0755);
    Status prepared = PrepareWorkingCopy(copy, uid, uid);
    if (!prepared.ok()) throw std::runtime_error(prepared.ToString());
    auto r = BwrapRunner::Create(options, copy);
    if (!r.ok()) throw std::runtime_error(r.status().ToString());
    runner = std::move(r).value();
  }
  explicit SandboxFixture(uid_t uid) : SandboxFixture(uid, SmallOptions(uid)) {}

  CommandResult Run(const std::string& command) {
    auto r = runner->Run(command, options.limits);
    if (!r.ok()) throw std::runtime_error(r.status().ToString());
    return std::move(r).value();
  }
  bool HostExists(const std::string& path) const {
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0;
  }

  testing::LeasedUids leased;
  testing::TempDir dir;
  std::string copy;
  SandboxOptions options;
  std::unique_ptr<BwrapRunner> runner;
};

}  // namespace seragen::sandbox::test
