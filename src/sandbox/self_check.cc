#include "seragen/sandbox/self_check.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "seragen/sandbox/bwrap_runner.h"

namespace seragen::sandbox {
namespace {

thread_local uid_t g_chown_uid;
thread_local gid_t g_chown_gid;
thread_local int g_chown_errno;
thread_local std::string* g_chown_failed_path;

int ChownEntry(const char* path, const struct stat* st, int, struct FTW*) {
  if (st->st_uid == g_chown_uid && st->st_gid == g_chown_gid) return 0;
  if (::lchown(path, g_chown_uid, g_chown_gid) != 0) {
    g_chown_errno = errno;
    *g_chown_failed_path = path;
    return 1;
  }
  return 0;
}

std::string ReadSmallFile(const char* path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// Kernel switches that commonly disable unprivileged user namespaces.
std::string UserNamespaceHints() {
  std::string hints;
  std::string max_ns = ReadSmallFile("/proc/sys/user/max_user_namespaces");
  if (max_ns == "0") hints += " /proc/sys/user/max_user_namespaces is 0 (user namespaces disabled).";
  std::string clone = ReadSmallFile("/proc/sys/kernel/unprivileged_userns_clone");
  if (clone == "0") hints += " kernel.unprivileged_userns_clone is 0.";
  std::string apparmor = ReadSmallFile("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  if (apparmor == "1") hints += " kernel.apparmor_restrict_unprivileged_userns is 1.";
  return hints;
}

}  // namespace

Status CheckCopyReachable(const std::string& host_copy, uid_t uid, gid_t gid) {
  if (host_copy.empty() || host_copy[0] != '/') {
    return InvalidArgumentError("working copy path must be absolute, got \"" + host_copy + "\"");
  }
  // Every ancestor must let the sandbox uid through (bwrap resolves the
  // bind source as that uid).
  std::filesystem::path p(host_copy);
  for (auto dir = p.parent_path();; dir = dir.parent_path()) {
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) {
      return NotFoundError("cannot stat " + dir.string() + ": " + std::strerror(errno));
    }
    bool searchable = (st.st_mode & S_IXOTH) || (st.st_uid == uid && (st.st_mode & S_IXUSR)) ||
                      (st.st_gid == gid && (st.st_mode & S_IXGRP));
    if (!searchable) {
      return PermissionDeniedError("the sandbox uid " + std::to_string(uid) + " cannot enter " + dir.string() +
                                   " (an ancestor of the working copy); make it searchable, "
                                   "e.g. chmod o+x " +
                                   dir.string());
    }
    if (dir == dir.parent_path()) break;
  }
  struct stat st;
  if (::stat(host_copy.c_str(), &st) != 0) return NotFoundError("working copy " + host_copy + " does not exist");
  return Status::Ok();
}

Status PrepareWorkingCopy(const std::string& host_copy, uid_t uid, gid_t gid) {
  SG_RETURN_IF_ERROR(CheckCopyReachable(host_copy, uid, gid));
  if (::geteuid() != 0) return Status::Ok();
  std::string failed;
  g_chown_uid = uid;
  g_chown_gid = gid;
  g_chown_errno = 0;
  g_chown_failed_path = &failed;
  int rc = ::nftw(host_copy.c_str(), ChownEntry, 64, FTW_PHYS);
  if (rc != 0) {
    if (!failed.empty()) {
      return IoError("cannot chown " + failed + " to the sandbox uid: " + std::strerror(g_chown_errno));
    }
    return IoError("cannot walk working copy " + host_copy + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Status SelfCheck(const SandboxOptions& options) {
  SG_RETURN_IF_ERROR(ValidateSandboxOptions(options));
  const char* tmp_env = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp_env && *tmp_env ? tmp_env : "/tmp") + "/seragen-selfcheck-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return IoError("sandbox self-check: cannot create a scratch directory: " + std::string(std::strerror(errno)));
  }
  const std::string scratch = pattern;
  struct Cleanup {
    std::string path;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } cleanup{scratch};
  ::chmod(scratch.c_str(), 0755);
  Status prepared = PrepareWorkingCopy(scratch, options.uid, options.gid);
  if (!prepared.ok()) return FailedPreconditionError("sandbox self-check: " + prepared.message());

  auto runner = BwrapRunner::Create(options, scratch);
  if (!runner.ok()) return FailedPreconditionError("sandbox self-check: " + runner.status().message());
  RunLimits limits = options.limits;
  limits.timeout = std::chrono::seconds(30);
  const std::string probe =
      "printf ok > " + options.mount_point + "/probe && cat " + options.mount_point +
      "/probe && echo \" $(id -u)\" && if touch /seragen-escape-probe 2>/dev/null; then echo ESCAPED; fi";
  auto result = (*runner)->Run(probe, limits);
  if (!result.ok()) {
    return FailedPreconditionError("sandbox self-check: bubblewrap could not start a sandbox: " +
                                   result.status().message() + UserNamespaceHints() +
                                   " Fix the host, or set sandbox: none to run agent commands "
                                   "unconfined (not recommended).");
  }
  const std::string expected = "ok " + std::to_string(options.uid) + "\n";
  if (result->exit_code != 0 || result->output != expected) {
    return FailedPreconditionError("sandbox self-check: the probe command failed (exit " +
                                   std::to_string(result->exit_code) + ", output \"" + result->output.substr(0, 500) +
                                   "\", expected \"" + expected + "\")." + UserNamespaceHints());
  }
  return Status::Ok();
}

}  // namespace seragen::sandbox
