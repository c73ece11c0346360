#include "seragen/sandbox/sandbox_options.h"

#include <algorithm>

namespace seragen::sandbox {

std::map<std::string, std::string> DefaultSandboxEnv() {
  return {
      {"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
      {"HOME", "/tmp"},
      {"LANG", "C.UTF-8"},
      {"LC_ALL", "C.UTF-8"},
      {"TERM", "dumb"},
      {"PAGER", "cat"},
      {"GIT_PAGER", "cat"},
      {"PYTHONPYCACHEPREFIX", "/tmp/.pycache"},
      {"PYTHONUNBUFFERED", "1"},
  };
}

uid_t SandboxUidForSlot(uid_t uid_base, int slot) { return uid_base + static_cast<uid_t>(slot < 0 ? 0 : slot); }

gid_t SandboxGroup(uid_t uid_base) { return uid_base - 1; }

Status ValidateSandboxOptions(const SandboxOptions& o) {
  const std::string& mp = o.mount_point;
  if (mp.size() < 2 || mp[0] != '/' || mp.find('/', 1) != std::string::npos || mp == "/." || mp == "/..") {
    return InvalidArgumentError(
        "sandbox.mount_point must be one absolute path component such as "
        "\"/repo\", got \"" +
        mp + "\"");
  }
  for (const char* reserved : {"/proc", "/dev", "/tmp", "/run", "/sys", "/usr", "/etc", "/bin", "/lib"}) {
    if (mp == reserved) {
      return InvalidArgumentError("sandbox.mount_point \"" + mp + "\" would hide a system directory");
    }
  }
  if (!o.rootfs.empty() && o.rootfs[0] != '/') {
    return InvalidArgumentError("sandbox.rootfs must be an absolute path, got \"" + o.rootfs + "\"");
  }
  for (const auto& p : o.extra_ro_binds) {
    if (p.empty() || p[0] != '/') {
      return InvalidArgumentError("sandbox.extra_ro_binds entries must be absolute paths, got \"" + p + "\"");
    }
  }
  for (const auto& b : o.binds) {
    if (b.host.empty() || b.host[0] != '/' || b.inside.size() < 2 || b.inside[0] != '/') {
      return InvalidArgumentError("sandbox binds need absolute paths, got \"" + b.host + "\" -> \"" + b.inside + "\"");
    }
  }
  for (const auto& p : o.hidden_paths) {
    if (p.size() < 2 || p[0] != '/') {
      return InvalidArgumentError("sandbox.hidden_paths entries must be absolute paths below \"/\", got \"" + p + "\"");
    }
  }
  if (std::find(o.groups.begin(), o.groups.end(), gid_t{0}) != o.groups.end()) {
    return InvalidArgumentError("sandbox groups must not include group 0 (root's group)");
  }
  if (o.uid == 0 || o.gid == 0) {
    return InvalidArgumentError(
        "sandbox.uid/gid must not be 0: a root sandbox keeps capabilities "
        "and ignores the process limit");
  }
  if (o.shell.empty() || o.shell[0] != '/') {
    return InvalidArgumentError("sandbox.shell must be an absolute path, got \"" + o.shell + "\"");
  }
  if (o.limits.timeout.count() <= 0) return InvalidArgumentError("sandbox timeout must be positive");
  if (o.limits.output_cap_chars < 64) {
    return InvalidArgumentError("sandbox output cap must be at least 64 characters");
  }
  if (o.tmp_size_mb <= 0) return InvalidArgumentError("sandbox.tmp_size_mb must be positive");
  if (!o.host_tmp.empty() && o.host_tmp[0] != '/') {
    return InvalidArgumentError("the rollout's /tmp must be an absolute host path, got \"" + o.host_tmp + "\"");
  }
  return Status::Ok();
}

}  // namespace seragen::sandbox
